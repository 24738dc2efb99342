# nix.sh, part 1: nix-instantiate --eval --strict of this file with a
# dummy store. Values of every kind Nix's evaluator allocates on the
# collected heap (attribute sets, lists, strings with contexts, thunks,
# closures, integers, floats), built in phases that each leave most of
# what they made as garbage, with one structure kept across all of them
# and checked at the end. The result is a small attribute set whose every
# field is a check or a count, printed by nix-instantiate.
let
  n = 60000;
  # A structure kept from the start to the end of the evaluation.
  kept = builtins.listToAttrs (builtins.genList (i: {
    name = "keep${toString i}";
    value = { index = i; label = "kept-${toString i}"; pair = [ i (i * i) ]; };
  }) 2000);

  # Phase 1: attribute sets built, updated and folded, then dropped.
  mk = i: { name = "k${toString i}"; value = { v = i; s = "x${toString i}"; }; };
  attrs = builtins.listToAttrs (builtins.genList mk n);
  updated = builtins.mapAttrs (k: v: v // { w = v.v * 3; t = v.s + "-y"; }) attrs;
  phase1 = builtins.foldl' (a: k: a + updated.${k}.w) 0 (builtins.attrNames updated);

  # Phase 2: lists sorted, filtered, concatenated and indexed.
  xs = builtins.genList (i: (i * 7919) - (i * 7919 / 60013) * 60013) n;
  sorted = builtins.sort (a: b: a < b) xs;
  odds = builtins.filter (x: x / 2 * 2 != x) sorted;
  pairs = builtins.concatMap (x: [ x (x + 1) ]) odds;
  phase2 = builtins.elemAt sorted 0 + builtins.elemAt sorted (n - 1) + builtins.length pairs;

  # Phase 3: strings built piece by piece, split, matched and rejoined.
  words = builtins.genList (i: "w${toString (i - i / 97 * 97)}") 20000;
  text = builtins.concatStringsSep " " words;
  replaced = builtins.replaceStrings [ "w1" "w2" ] [ "one-" "two-" ] text;
  pieces = builtins.filter builtins.isString (builtins.split " " replaced);
  matched = builtins.length (builtins.filter (w: builtins.match "one-[0-9]*" w != null) pieces);
  phase3 = builtins.stringLength replaced + matched;

  # Phase 4: a lazy fixed point of derivation-like records depending on
  # each other, forced through their deepest dependency chain.
  m = 12000;
  pkgs = builtins.listToAttrs (builtins.genList (i: {
    name = "p${toString i}";
    value = {
      deps = if i < 3 then [ ] else [ "p${toString (i / 2)}" "p${toString (i - 3)}" ];
      depth = if i < 3 then 0
              else 1 + builtins.foldl' (a: d: if pkgs.${d}.depth > a then pkgs.${d}.depth else a)
                         0 pkgs."p${toString i}".deps;
      weight = i - i / 13 * 13;
    };
  }) m);
  deepest = builtins.foldl' (a: p: if p.depth > a then p.depth else a) 0 (builtins.attrValues pkgs);
  weights = builtins.foldl' (a: p: a + p.weight) 0 (builtins.attrValues pkgs);

  # Phase 5: JSON out and back in, and a closure over a generic graph.
  json = builtins.toJSON (builtins.genList (i: { id = i; tags = [ "a${toString i}" "b" ]; f = i * 0.5; }) 5000);
  back = builtins.fromJSON json;
  closure = builtins.genericClosure {
    startSet = [ { key = 1; } ];
    operator = item: if item.key >= 30000 then [ ] else [ { key = item.key * 2; } { key = item.key + 7; } ];
  };
  phase5 = builtins.length back + builtins.length closure + builtins.stringLength json;

  # Deep non-tail recursion: the evaluator's stack holds the live values.
  sumTo = k: if k == 0 then 0 else k + sumTo (k - 1);

  keptOk = builtins.all (i: kept."keep${toString i}".index == i
                            && kept."keep${toString i}".label == "kept-${toString i}"
                            && builtins.elemAt kept."keep${toString i}".pair 1 == i * i)
                        (builtins.genList (i: i) 2000);
in {
  inherit phase1 phase2 phase3 deepest weights phase5;
  recursion = sumTo 20000;
  keptIntact = keptOk;
  keptCount = builtins.length (builtins.attrNames kept);
  lastHalf = (builtins.elemAt back 4999).f;
}
