-- bench/run-clients.sh, m2-algebra: Macaulay2 (its interpreter and its
-- engine allocate through libgc): a free resolution, Groebner bases over a
-- finite field and over QQ, big-integer arithmetic, and interpreter lists
-- and hash tables. No random input: the output is the same on every run.
R = ZZ/32003[x_0..x_5];
I = ideal(x_0*x_1 - x_2*x_3, x_1*x_2 - x_3*x_4, x_2*x_3 - x_4*x_5, x_3*x_4 - x_5*x_0, x_4*x_5 - x_0*x_1, x_0^3 + x_1^3 + x_2^3 + x_3^3 + x_4^3 + x_5^3);
C = res I;
print toString betti C;
S = QQ[a,b,c,d];
J = ideal(a^3 - b*c*d + 7, b^3 - c*d*a - 3, c^3 - a*b*d + 2, d^2 - a*b + c);
G = gb J;
print toString numgens ideal leadTerm G;
print toString degree J;
f = n -> product(1..n, i -> i);
print toString(f 2000 % 1000000007);
print toString sum(1..3000, i -> i^7 // (i + 1));
L = apply(300000, i -> {i, i * i, toString i});
n = #(select(L, l -> l#0 % 7 == 3));
print toString n;
H = new MutableHashTable;
scan(200000, i -> H#(toString i) = i^2);
print toString sum(keys H, k -> H#k % 1009);
s = sort apply(100000, i -> (i * 7919) % 100003);
print toString(s#0 + s#99999 + #s);
