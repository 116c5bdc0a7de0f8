#!/usr/bin/env bash
# Evaluation panel: generate the data and splits (bench/panel), run the
# scikit-learn peer (bench/peer/krr.py) and, when this kpls has it,
# `kpls eval` on every data set, then print the summary table
# (bench/panel/summarize.py).
#
#   bench/panel/run.sh [OUT]          (default OUT=/tmp/kpls-panel)
#
# Writes OUT/data/ (the panel), OUT/peer.jsonl (truncated first),
# OUT/kpls/NAME.json and OUT/summary.md. Run from anywhere inside the
# repository. Environment:
#
#   SETS="kin8nm sinc"   data sets to run (default: all in OUT/data/panel.json)
#   SPLITS=3             splits per data set (passed to gen)
#   GEN_ARGS=...         more flags for `panel gen` (--max-train, --seed, ...)
#   PEER_ARGS=...        more flags for krr.py (--linear, --gpr-max, ...)
#   SKIP_PEER=1          keep OUT/peer.jsonl, do not run the peer
#   SKIP_KPLS=1          do not run kpls eval
#   PYTHON=...           interpreter with numpy and sklearn (default: python3
#                        if it imports sklearn, else /usr/bin/python3)
#
# The data sets run one after another; the peer uses all CPUs through
# BLAS (see krr.py), kpls eval its own default parallelism.
set -euo pipefail

out=${1:-/tmp/kpls-panel}
cd "$(dirname "$0")/../.."
splits=${SPLITS:-3}

if [[ -z ${PYTHON:-} ]]; then
	if python3 -c 'import sklearn' 2>/dev/null; then PYTHON=python3; else PYTHON=/usr/bin/python3; fi
fi

mkdir -p "$out"
echo "== panel gen into $out/data" >&2
# shellcheck disable=SC2086
go run ./bench/panel gen --out "$out/data" --splits "$splits" ${GEN_ARGS:-}

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
		"$PYTHON" bench/peer/krr.py --data "$out/data/$s.csv" --splits "$out/data/$s.splits" \
			--target y --out "$out/peer.jsonl" ${PEER_ARGS:-}
	done
fi

kpls_docs=()
if [[ -z ${SKIP_KPLS:-} ]]; then
	bin=$out/kpls-bin
	go build -o "$bin" ./cmd/kpls
	if "$bin" eval --help >/dev/null 2>&1; then
		mkdir -p "$out/kpls"
		for s in $sets; do
			echo "== kpls eval: $s" >&2
			"$bin" eval --data "$out/data/$s.csv" --target y --split-dir "$out/data/$s.splits" --json \
				>"$out/kpls/$s.json"
			kpls_docs+=("$out/kpls/$s.json")
		done
	else
		echo "== this kpls has no eval command: skipping kpls" >&2
	fi
fi

peer=()
[[ -s $out/peer.jsonl ]] && peer=(--peer "$out/peer.jsonl")
kp=()
((${#kpls_docs[@]})) && kp=(--kpls "${kpls_docs[@]}")
if ((${#peer[@]} + ${#kp[@]} == 0)); then
	echo "== no results to summarise" >&2
	exit 0
fi
"$PYTHON" bench/panel/summarize.py "${peer[@]}" "${kp[@]}" | tee "$out/summary.md"
