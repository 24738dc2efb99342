# autogen-defs.awk: autogen.sh's definitions, 3,000 items (name, value,
# group, doc) for autogen-table.tpl.
BEGIN {
  print "AutoGen Definitions table.tpl;"
  for (i = 1; i <= 3000; i++)
    printf "item = { name = \"sym%04d\"; value = %d; group = g%d; doc = \"item %d of the table, value %d\"; };\n", i, (i * 7919) % 10007, i % 13, i, (i * 7919) % 10007
}
