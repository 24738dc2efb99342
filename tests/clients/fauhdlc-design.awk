# Writes the VHDL design that tests/clients/fauhdlc.sh compiles: n (-v n=N)
# units and a testbench entity, top.  Each unit: a package with constants,
# a record and an array type and a function with a loop; an entity whose
# architecture has an array signal, a clocked and a combinational process.
# The testbench has a process per unit calling its function.  Only what
# fauhdlc supports: no component instantiation, record signals, mod or
# physical units.
BEGIN {
    for (k = 0; k < n; k++) {
        print "library ieee;"
        print "use ieee.std_logic_1164.all;"
        printf "package pkg%d is\n", k
        printf "  constant WIDTH%d : integer := %d;\n", k, 4 + k % 13
        printf "  type rec%d is record\n    a : integer;\n    b : std_logic;\n    c : std_logic_vector(%d downto 0);\n  end record;\n", k, 3 + k % 5
        printf "  type arr%d is array (0 to %d) of integer;\n", k, 7 + k % 9
        printf "  function mix%d(x : integer; y : integer) return integer;\n", k
        printf "end pkg%d;\n\n", k
        printf "package body pkg%d is\n", k
        printf "  function mix%d(x : integer; y : integer) return integer is\n", k
        printf "    variable acc : integer := %d;\n  begin\n", k
        printf "    for i in 0 to %d loop\n      acc := acc * 3 + x + i * y;\n      acc := acc - (acc / %d) * %d;\n    end loop;\n", 5 + k % 7, 1009 + k, 1009 + k
        printf "    return acc;\n  end mix%d;\nend pkg%d;\n\n", k, k
        printf "library ieee;\nuse ieee.std_logic_1164.all;\nuse work.pkg%d.all;\n", k
        printf "entity unit%d is\n  port (clk : in std_logic; din : in integer; dout : out integer; flag : out std_logic);\nend unit%d;\n\n", k, k
        printf "architecture rtl of unit%d is\n  signal regs : arr%d;\n  signal parity : std_logic;\n  signal sum : integer := 0;\nbegin\n", k, k
        printf "  clocked : process (clk)\n    variable tmp : integer;\n  begin\n    if clk'event and clk = '1' then\n"
        printf "      tmp := mix%d(din, sum);\n      for i in %d downto 1 loop\n        regs(i) <= regs(i - 1);\n      end loop;\n", k, 7 + k % 9
        printf "      regs(0) <= tmp;\n      sum <= sum + tmp - ((sum + tmp) / 65536) * 65536;\n"
        printf "      if tmp - (tmp / 2) * 2 = 0 then\n        parity <= '1';\n      else\n        parity <= '0';\n      end if;\n    end if;\n  end process;\n"
        printf "  comb : process (sum, parity, regs)\n  begin\n    dout <= sum + regs(0);\n    flag <= parity;\n  end process;\nend rtl;\n\n"
    }
    print "library ieee;\nuse ieee.std_logic_1164.all;"
    for (k = 0; k < n; k++) printf "use work.pkg%d.all;\n", k
    print "entity top is\nend top;\n"
    print "architecture bench of top is\n  signal clk : std_logic := '0';"
    for (k = 0; k < n; k++) printf "  signal d%d : integer := 0;\n", k
    print "  signal stim : integer := 1;\nbegin"
    for (k = 0; k < n; k++)
        printf "  p%d : process (clk)\n  begin\n    if clk'event and clk = '1' then\n      d%d <= mix%d(%s, d%d);\n    end if;\n  end process;\n",
               k, k, k, (k == 0 ? "stim" : "d" (k - 1)), k
    print "  driver : process\n  begin\n    for i in 1 to 20 loop\n      clk <= '1';\n      wait on clk;\n      clk <= '0';\n      stim <= stim * 7 - ((stim * 7) / 101) * 101;\n      wait on clk;\n    end loop;"
    printf "    assert false report \"done\" severity note;\n    wait;\n  end process;\nend bench;\n"
}
