@main[]
^rem{ Parser 3 program run by tests/clients/parser3.sh on stock libgc and on
  bibop: strings built in rounds, a hash of 30,000 keys, a sorted and
  filtered table, regular expressions, recursion.  Parser 3 keeps the
  collector disabled while it runs a document; ^memory:compact[] enables
  it, collects and disables it again (11 collections in all). }
^rem{ strings built in rounds, most of them garbage at once }
$total(0)
^for[round](1;40){
	$s[]
	^for[i](1;2000){$s[$s^i.format[%05d],]}
	$total($total + ^s.length[])
	^if($round % 5 == 0){^memory:compact[]}
}
strings: $total
^rem{ a hash of 30,000 keys, read back }
$h[^hash::create[]]
^for[j](0;29){^for[i](1;1000){$n($j * 1000 + $i)$h.[key$n][^eval($n * 7 % 1009)]}}
$sum(0)
^h.foreach[k;v]{$sum($sum + $v)}
hash: ^h._count[] keys, sum $sum, key4711 = $h.key4711
^memory:compact[]
^rem{ a table, sorted and filtered }
$t[^table::create{n	sq	name}]
^for[i](1;5000){^t.append{$i	^eval($i * $i % 10007)	item$i}}
^t.sort($t.sq)[desc]
top: ^t.menu{$t.n=$t.sq}[, ] 
$big[^t.select($t.sq > 9990)]
big: ^big.count[] rows
^memory:compact[]
^rem{ regular expressions and splitting }
$text[^for[i](1;3000){word$i ^if($i % 3 == 0){fizz }}]
$fizz[^text.match[(word\d+) fizz][g]]
fizz: ^fizz.count[] matches, last $fizz.1
$parts[^text.split[ ][h]]
parts: ^parts.count[]
$up[^text.upper[]]
upper: ^up.left(40)
^rem{ recursion }
fib: ^fib(22)
@fib[n]
^if($n < 2){$result($n)}{$result(^fib($n - 1) + ^fib($n - 2))}
