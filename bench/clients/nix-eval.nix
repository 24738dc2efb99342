# nix-eval.nix: the nix-eval workload of bench/run-clients.sh
# (nix-instantiate --eval --strict with a dummy store).  Large attribute
# sets and lists: listToAttrs of 300,000 entries, mapAttrs and // updates,
# attribute lookups by computed names, genList, sort, filter, foldl',
# concatMap, string building and a recursive fixed point over an attribute
# set of 40,000 derivation-like records.  The result is a small attribute
# set, printed by nix-instantiate.
let
  n = 300000;
  xs = builtins.genList (i: (i * 7919) - (i * 7919 / 300007) * 300007) n;
  mk = i: { name = "k${toString i}"; value = { v = i; s = "x${toString i}"; l = [ i (i + 1) ]; }; };
  attrs = builtins.listToAttrs (map mk xs);
  upd = builtins.mapAttrs (k: v: v // { w = v.v * 2; t = v.s + "y"; }) attrs;
  names = builtins.attrNames upd;
  total = builtins.foldl' (a: k: a + upd.${k}.w) 0 names;
  lookups = builtins.foldl' (a: i: a + (upd."k${toString i}".v or 0)) 0 (builtins.genList (i: i * 3) 100000);
  sorted = builtins.sort (a: b: a < b) xs;
  evens = builtins.filter (x: x / 2 * 2 == x) sorted;
  pairs = builtins.concatMap (x: [ x (x + 1) ]) evens;
  text = builtins.concatStringsSep "," (map (x: x.t) (builtins.attrValues upd));
  # derivation-like records depending on each other, resolved lazily
  m = 40000;
  pkgs = builtins.listToAttrs (builtins.genList (i: {
    name = "p${toString i}";
    value = {
      pname = "pkg-${toString i}";
      deps = if i < 3 then [ ] else [ "p${toString (i / 2)}" "p${toString (i - 3)}" ];
      depth = if i < 3 then 0 else 1 + builtins.foldl' (a: d: if pkgs.${d}.depth > a then pkgs.${d}.depth else a) 0 pkgs."p${toString i}".deps;
      meta = { description = "package number ${toString i}"; weight = i - i / 13 * 13; };
    };
  }) m);
  deepest = builtins.foldl' (a: p: if p.depth > a then p.depth else a) 0 (builtins.attrValues pkgs);
  weights = builtins.foldl' (a: p: a + p.meta.weight) 0 (builtins.attrValues pkgs);
in {
  count = builtins.length names;
  inherit total lookups deepest weights;
  first = builtins.head sorted;
  last = builtins.elemAt sorted (n - 1);
  evens = builtins.length evens;
  pairs = builtins.length pairs;
  textLength = builtins.stringLength text;
}
