-- Macaulay2 program run by tests/clients/macaulay2.sh on stock libgc and on
-- bibop: Groebner bases (QQ, ZZ/32003, cyclic-5), big integers, polynomial
-- arithmetic and factoring, lists, hash tables, strings, and rounds of
-- short-lived lists with one survivor each.  Deterministic: fixed seed.
-- Groebner bases over QQ and a finite field
R = QQ[a..e];
I = ideal(a^2*b - c*d*e, b^3 - a*e^2, c^2*e - a*b*d, d^3 - b*c*e);
G = gens gb I;
print("gb generators: " | toString numcols G);
print("gb: " | toString G);
print("hilbert polynomial: " | toString hilbertPolynomial(I, Projective => false));
print("degree: " | toString degree I | ", codim: " | toString codim I);
setRandomSeed 4711;
S = ZZ/32003[x,y,z,w];
J = ideal(random(3, S), random(3, S), random(4, S));
JG = gens gb J;
print("random cubic gb size: " | toString numcols JG | ", first: " | toString JG_(0,0));
K = ideal apply(1..6, i -> (x+y+z+w)^i - x^i*y - z^i*w);
print("K gb: " | toString numgens ideal gens gb K);
-- cyclic-5 over QQ
T = QQ[v_1..v_5];
cyc = ideal(sum(1..5, i -> v_i), sum(1..5, i -> v_i*v_(i%5+1)),
  sum(1..5, i -> v_i*v_(i%5+1)*v_((i+1)%5+1)),
  sum(1..5, i -> v_i*v_(i%5+1)*v_((i+1)%5+1)*v_((i+2)%5+1)),
  product(1..5, i -> v_i) - 1);
C = gens gb cyc;
print("cyclic-5 gb: " | toString numcols C | " elements, degree " | toString degree cyc);
print("last element: " | toString C_(0, numcols C - 1));
-- big integers
n = 2^1000 + 17;
print("powmod: " | toString (n^5 % 1000000007));
print("100!: " | toString (100!));
f = 1; for i from 1 to 3000 do f = f * i;
print("digits of 3000!: " | toString(#toString f));
print("gcd: " | toString gcd(f, 2^5000 * 3^700 + 1));
-- polynomials
P = (x + 2*y - 3*z + w + 1)^12;
print("terms: " | toString(#terms P));
print("factor: " | toString factor(x^6 - y^6));
print("factor over QQ: " | toString factor((a+b)^5*(a-2*c)^3 - 0));
-- lists, hash tables, strings
L = apply(1..200000, i -> i^2);
print("sum of squares: " | toString sum toList L);
H = new MutableHashTable;
for i from 1 to 50000 do H#i = toString i;
print("keys: " | toString(#keys H) | ", H#4711 = " | H#4711);
Y = tally apply(1..100000, i -> i % 97);
print("tally: " | toString Y#0 | " " | toString Y#96);
s = concatenate apply(1..20000, i -> toString i);
print("string length: " | toString(#s));
M = matrix toList apply(1..30, i -> toList apply(1..30, j -> (i*j + i^2) % 17));
print("det: " | toString det M | ", rank: " | toString rank M);
print("sorted: " | toString take(sort toList apply(1..1000, i -> (i * 7919) % 1009), 20));
-- churn: short-lived lists and strings, one survivor per round
acc = {};
for k from 1 to 20 do (
  tmp = apply(1..50000, i -> {i, toString(i*k)});
  acc = append(acc, last tmp));
print("churn: " | toString acc);
