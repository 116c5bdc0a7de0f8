#!/usr/bin/env bash
# Evaluation panel: generate the data and splits (lab/panel), run the
# scikit-learn peer (lab/peer/krr.py) and `kpls-lab eval` on every data
# set, then print the summary table (lab/panel/summarize.py).
#
#   lab/panel/run.sh [OUT]          (default OUT=/tmp/kpls-panel)
#
# Writes OUT/data/ (the panel), OUT/peer.jsonl (truncated first),
# OUT/kpls/NAME.json and OUT/summary.md. Run from anywhere inside the
# repository. Environment:
#
#   SETS="kin8nm sinc"   data sets to run (default: all in OUT/data/panel.json)
#   SPLITS=N             splits per data set (passed to gen as --splits; default
#                        gen's own: 5 for data sets under 2000 rows, 3 for the others)
#   GEN_ARGS=...         more flags for `panel gen` (--max-train, --seed, ...)
#   PEER_ARGS=...        more flags for krr.py (--linear, --gpr-max, ...)
#   SKIP_PEER=1          keep OUT/peer.jsonl, do not run the peer
#   SKIP_KPLS=1          do not run kpls-lab eval
#   PYTHON=...           interpreter with numpy and sklearn (default: python3
#                        if it imports sklearn, else /usr/bin/python3)
#
# The data sets run one after another; the peer uses all CPUs through
# BLAS (see krr.py), kpls-lab eval its own default parallelism.
set -euo pipefail

out=${1:-/tmp/kpls-panel}
cd "$(dirname "$0")/../.."
splits=()
[[ -n ${SPLITS:-} ]] && splits=(--splits "$SPLITS")

if [[ -z ${PYTHON:-} ]]; then
	if python3 -c 'import sklearn' 2>/dev/null; then PYTHON=python3; else PYTHON=/usr/bin/python3; fi
fi

mkdir -p "$out"
bin=$out/kpls-lab-bin
go build -o "$bin" ./lab/cmd/kpls-lab
echo "== panel gen into $out/data" >&2
# shellcheck disable=SC2086
"$bin" panel gen --out "$out/data" "${splits[@]}" ${GEN_ARGS:-}

if [[ -n ${SETS:-} ]]; then
	sets=$SETS
else
	sets=$("$PYTHON" -c 'import json,sys; print(" ".join(s["name"] for s in json.load(open(sys.argv[1]))["sets"]))' "$out/data/panel.json")
fi

if [[ -z ${SKIP_PEER:-} ]]; then
	: >"$out/peer.jsonl"
	for s in $sets; do
		echo "== peer: $s" >&2
		# shellcheck disable=SC2086
		"$PYTHON" lab/peer/krr.py --data "$out/data/$s.csv" --splits "$out/data/$s.splits" \
			--target y --out "$out/peer.jsonl" ${PEER_ARGS:-}
	done
fi

kpls_docs=()
if [[ -z ${SKIP_KPLS:-} ]]; then
	mkdir -p "$out/kpls"
	for s in $sets; do
		echo "== kpls-lab eval: $s" >&2
		"$bin" eval --data "$out/data/$s.csv" --target y --split-dir "$out/data/$s.splits" --json \
			>"$out/kpls/$s.json"
		kpls_docs+=("$out/kpls/$s.json")
	done
fi

peer=()
[[ -s $out/peer.jsonl ]] && peer=(--peer "$out/peer.jsonl")
kp=()
((${#kpls_docs[@]})) && kp=(--kpls "${kpls_docs[@]}")
if ((${#peer[@]} + ${#kp[@]} == 0)); then
	echo "== no results to summarise" >&2
	exit 0
fi
"$PYTHON" lab/panel/summarize.py "${peer[@]}" "${kp[@]}" | tee "$out/summary.md"
