#!/usr/bin/env bash
# What the GitHub Action (action.yml) runs once rulepress is installed, and what any CI can run:
# validate (annotated with --format github on GitHub), play the scenario tests, build the
# tables and rulebooks, and optionally print the PDFs.
#   RULEPRESS_PATHS   games or folders of games (default: content)
#   RULEPRESS_FORMAT  text | github | json (default: text)
#   RULEPRESS_BUILD   build folder (default: build)
#   RULEPRESS_PRINT   folder for the PDFs; empty: no PDFs (default: empty)
set -euo pipefail
read -r -a paths <<< "${RULEPRESS_PATHS:-content}"
format="${RULEPRESS_FORMAT:-text}"
build="${RULEPRESS_BUILD:-build}"
print="${RULEPRESS_PRINT:-}"

echo "== rulepress validate ${paths[*]}"
rulepress validate --format "$format" "${paths[@]}"
echo "== rulepress test ${paths[*]}"
rulepress test "${paths[@]}"
echo "== rulepress build ${paths[*]} -o $build"
rulepress build "${paths[@]}" -o "$build"
if [ -n "$print" ]; then
  for p in "${paths[@]}"; do
    if [ -f "$p/game.yaml" ]; then games=("$p"); else games=("$p"/*/); fi
    for g in "${games[@]}"; do
      [ -f "$g/game.yaml" ] || continue
      echo "== rulepress print $g -o $print"
      rulepress print "$g" --lang en --lang ru -o "$print"
    done
  done
fi
