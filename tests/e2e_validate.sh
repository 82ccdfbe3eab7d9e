#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_validate.sh - `vlocksim validate` and `calibrate` from the command line.
. "$(dirname "$0")/e2e_lib.sh"
T=$tmp
# checks here are shell conditions, written as strings
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }

cp -r "$top_srcdir/tests/data/valid" "$T/v"
chmod -R u+w "$T/v"

"$VS" validate --cases "$T/v/cases" --out "$T/o1" --format csv > "$T/out1.csv" 2> "$T/err1"
check "validate exits 0" "[ $? -eq 0 ]"
check "CSV columns as specified" \
  "head -1 '$T/o1/validation.csv' | grep -qx 'case,row,role,metric,unit,measured,measured_sd,predicted,predicted_ci95,rel_error,within_tolerance,tolerance,judged_by,capped,reps'"
check "each row carries its tolerance and the rule that judged it" \
  "grep -q '^synthetic,loops400/two,prediction,.*,yes,rel 5%,rel,no,1\$' '$T/o1/validation.csv' &&
   grep -q '^synthetic,loops400/one,prediction,.*,no,rel 5%,miss,no,1\$' '$T/o1/validation.csv'"
check "the text report ends with one line per case and the total" \
  "tail -2 '$T/o1/validation.txt' | head -1 | grep -q '^case synthetic: [0-9]/2 .*; tolerance rel 5%\$' &&
   tail -1 '$T/o1/validation.txt' | grep -q '^overall: '"
check "one line per row" "[ \$(grep -c '^synthetic,' '$T/o1/validation.csv') -eq 3 ]"
check "summary per case and overall" \
  "grep -q '^# case synthetic: [0-9]/2 prediction rows within tolerance, median |rel_error|' '$T/o1/validation.csv' && grep -q '^# overall: ' '$T/o1/validation.csv'"
check "stdout is the CSV" "cmp -s '$T/out1.csv' '$T/o1/validation.csv'"
check "txt and json written" "[ -s '$T/o1/validation.txt' ] && [ -s '$T/o1/validation.json' ]"
if command -v gnuplot >/dev/null 2>&1; then
  for f in synthetic.png synthetic.svg scatter.png scatter.svg summary.png summary.svg; do
    check "plot $f written" "[ -s '$T/o1/$f' ]"
  done
fi
if command -v python3 >/dev/null 2>&1; then
  check "JSON parses" "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$T/o1/validation.json'"
fi

# Worker pool: the same bytes for any -j (rows run in parallel, reported in order).
"$VS" validate --cases "$T/v/cases" --out "$T/oj1" -j 1 --format json > "$T/j1.json" 2>/dev/null
"$VS" validate --cases "$T/v/cases" --out "$T/oj3" -j 3 --format json > "$T/j3.json" 2>/dev/null
check "validate -j 1 and -j 3: the same stdout" "[ -s '$T/j1.json' ] && cmp -s '$T/j1.json' '$T/j3.json'"
for f in validation.csv validation.txt validation.json; do
  check "validate -j 1 and -j 3: the same $f" "cmp -s '$T/oj1/$f' '$T/oj3/$f' && cmp -s '$T/o1/$f' '$T/oj1/$f'"
done
"$VS" validate --cases "$T/v/cases" --out "$T/oj0" -j 0 > /dev/null 2>&1
check "validate -j 0 is refused" "[ $? -eq 2 ]"

# A row whose run stops at the duration cap is marked capped (completed = 0),
# whatever its error.
sed -e 's/^name: synthetic/name: capped/' -e 's/tolerance: {rel: 0.05}/tolerance: {rel: 0.01, or_sd: true}/' \
  -e 's/  loops400: \["workloads.w.program\[0\].loop=400"\]/  loops400: ["workloads.w.program[0].loop=400", "duration=50us"]/' \
  "$T/v/cases/synthetic.yaml" > "$T/v/cases/capped.yaml"
"$VS" validate capped --cases "$T/v/cases" --out "$T/oc" > "$T/outc.txt" 2> "$T/errc"
check "a capped prediction is marked in CSV and text" \
  "grep -q '^capped,loops400/two,prediction,.*,yes,' '$T/oc/validation.csv' &&
   grep 'loops400/two' '$T/outc.txt' | grep -q 'CAPPED\$' && grep -q '; 2 capped' '$T/outc.txt'"
check "the row's tolerance says or sd" "grep -q ',rel 1% or sd,' '$T/oc/validation.csv'"
check "validate is quiet on a pipe" "[ ! -s '$T/errc' ]"
check "the summary data has each prediction row with its band, within and capped" \
  "[ \$(grep -c '^[0-9]' '$T/oc/summary.dat') -eq 2 ] && grep -q '^0 1 -75 1 0 1 0 ' '$T/oc/summary.dat'"
rm "$T/v/cases/capped.yaml"

# Honesty: a prediction row's measured value changes nothing predicted.
sed -i 's/^loops400,two,completion_seconds,s,[^,]*,/loops400,two,completion_seconds,s,99,/' "$T/v/measured.csv"
"$VS" validate --cases "$T/v/cases" --out "$T/o2" --format csv > /dev/null 2>&1
cut -d, -f1-5,8,9 "$T/o1/validation.csv" | grep -v '^#' > "$T/p1"
cut -d, -f1-5,8,9 "$T/o2/validation.csv" | grep -v '^#' > "$T/p2"
check "measured value really changed" "grep -q ',99,' '$T/o2/validation.csv'"
check "predicted columns unchanged when a prediction row's measured value changes" "cmp -s '$T/p1' '$T/p2'"

# Calibration reads only calibration rows: same output after the change above.
(cd "$T/v" && "$VS" calibrate calib.yaml --cases cases --out "$T/c1.yaml" > /dev/null 2>&1)
check "calibrate writes its file" "grep -q '^set:' '$T/c1.yaml'"
check "calibrate header names the calibration rows" "grep -q 'synthetic:loops200/two' '$T/c1.yaml'"
(cd "$T/v" && "$VS" calibrate calib.yaml -j 3 --cases cases --out "$T/c1j.yaml" > /dev/null 2>&1)
check "calibrate -j 3 fits the same as -j default" \
  "[ -s '$T/c1j.yaml' ] && [ \"\$(grep -v '^# Written' '$T/c1.yaml')\" = \"\$(grep -v '^# Written' '$T/c1j.yaml')\" ]"
sed -i 's/^loops400,one,completion_seconds,s,[^,]*,/loops400,one,completion_seconds,s,7,/' "$T/v/measured.csv"
(cd "$T/v" && "$VS" calibrate calib.yaml --cases cases --out "$T/c2.yaml" > /dev/null 2>&1)
check "calibration ignores prediction rows" \
  "[ -s '$T/c2.yaml' ] && [ \"\$(grep -v '^# Written' '$T/c1.yaml')\" = \"\$(grep -v '^# Written' '$T/c2.yaml')\" ]"

# Without --output, calibrate writes out/calibrate/ and leaves CALIB's output: alone.
(cd "$T/v" && "$VS" calibrate calib.yaml --cases cases > "$T/cal.out" 2>&1)
check "calibrate without --output writes out/calibrate/NAME" \
  "[ -s '$T/v/out/calibrate/synthetic.yaml' ] && [ ! -e '$T/v/calibrated.out.yaml' ]"
check "calibrate says how to replace the shipped file" \
  "grep -q -- '--output calibrated.out.yaml replaces it' '$T/cal.out'"
(cd "$T/v" && SOURCE_DATE_EPOCH=86400 "$VS" calibrate calib.yaml --cases cases \
  --output "$T/c3.yaml" > /dev/null 2>&1)
check "--output with SOURCE_DATE_EPOCH dates the file from it" \
  "grep -q ' on 1970-01-02\\.' '$T/c3.yaml'"

# A scenario takes the calibrated values through `calibration:`.
cp "$T/c1.yaml" "$T/v/calibrated.yaml"
printf 'calibration: calibrated.yaml\n' >> "$T/v/scenario.yaml"
"$VS" run "$T/v/scenario.yaml" --no-wall-clock --format csv > "$T/r1.csv" 2> "$T/rerr"
check "scenario with calibration: runs" "[ $? -eq 0 ]"

# Errors: unknown case, bad case file.
"$VS" validate nosuchcase --cases "$T/v/cases" --out "$T/o3" > /dev/null 2> "$T/err3"
check "unknown case exits 2" "[ $? -eq 2 ] && [ ! -e '$T/o3' ]"
printf 'name: x\nscenario: "../scenario.yaml"\nmeasured: "../measured.csv"\nmetric: m\nrows: 5\n' > "$T/v/cases/x.yaml"
"$VS" validate x --cases "$T/v/cases" --out "$T/o4" > /dev/null 2> "$T/err4"
check "bad case exits 2 with file:line:col" "[ $? -eq 2 ] && grep -q 'x.yaml:5:7:' '$T/err4'"

# A row that cannot run, among rows running in parallel: its error, exit 2, no output.
cp "$T/v/cases/synthetic.yaml" "$T/v/cases/broken.yaml"
sed -i 's/^name: synthetic/name: broken/; s/one: \["vms\[0\].threads=1"\]/one: ["vms[7].threads=1"]/' "$T/v/cases/broken.yaml"
rm -f "$T/v/cases/x.yaml"
"$VS" validate broken --cases "$T/v/cases" --out "$T/o5" -j 3 > /dev/null 2> "$T/err5"
check "a failing row under -j 3 exits 2 naming the row" \
  "[ $? -eq 2 ] && grep -q 'case broken, row loops400/one' '$T/err5' && [ ! -e '$T/o5' ]"

# A row whose metric the scenario does not yield fails before anything runs:
# the case's loop is made 10^12 iterations long, so a run would take hours.
sed -e 's/^name: synthetic/name: typo/' -e 's/{row: loops400\/one, role: prediction}/{row: loops400\/one, role: prediction, metric: g.l.no_such}/' \
  -e 's/  loops200: \["workloads.w.program\[0\].loop=200"\]/  loops200: ["workloads.w.program[0].loop=1000000000000"]/' \
  "$T/v/cases/synthetic.yaml" > "$T/v/cases/typo.yaml"
timeout 20 "$VS" validate typo --cases "$T/v/cases" --out "$T/ot" > /dev/null 2> "$T/errt"
check "an unknown row metric: exit 2 before simulating, nothing written" \
  "[ $? -eq 2 ] && grep -q \"row loops400/one: the scenario has no metric 'g.l.no_such'\" '$T/errt' && [ ! -e '$T/ot' ]"
rm "$T/v/cases/typo.yaml"

e2e_finish
