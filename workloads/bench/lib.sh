# lib.sh - helpers the side-by-side benchmark scripts share (sourced, not run).

# The median of the numbers on stdin, one a line.
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# The inputs of the real-program rows (run.sh's sed, jq and sqlite, collector_cost.sh's) into
# DIR, at SCALE times the items (1: each program runs ~0.2-0.7 s untraced on a 2-CPU host).
# Fixed seeds: the same bytes every run.
real_program_inputs() {
	local dir=$1 scale=$2
	awk -v n=$((8000 * scale)) 'BEGIN { srand(42); for (i = 0; i < n; i++) { printf "id%d", i
		for (j = 0; j < 6; j++) printf " k%c%c=%d", 97 + int(rand() * 26), 97 + int(rand() * 26), int(rand() * 100000)
		print "" } }' >"$dir/sed.txt"
	echo 's/([a-z]+)=([0-9]+)/\2:\1/g' >"$dir/sed.script"
	awk -v n=$((18000 * scale)) 'BEGIN { srand(42); printf "["; for (i = 0; i < n; i++) { if (i) printf ","
		printf "{\"id\":%d,\"name\":\"n%x\",\"tags\":[\"t%d\",\"t%d\"],\"vals\":[%d,%d,%d,%d]}", i,
			int(rand() * 1e6), int(rand() * 50), int(rand() * 50), int(rand() * 1000),
			int(rand() * 1000), int(rand() * 1000), int(rand() * 1000) }
		print "]" }' >"$dir/in.json"
	echo 'group_by(.tags[0]) | map({tag: .[0].tags[0], n: length, sum: (map(.vals | add) | add),
	names: (map(.name) | join(","))})' >"$dir/prog.jq"
	cat >"$dir/ins.sql" <<SQL
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, v REAL);
CREATE INDEX t_name ON t(name);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $((60000 * scale)))
INSERT INTO t SELECT i, printf('n%08x', (i * 2654435761) % 4294967296), i % 97,
	(i * 7919 % 10007) / 10007.0 FROM c;
SELECT grp, count(*), sum(v), group_concat(substr(name, 1, 4)) FROM t GROUP BY grp ORDER BY 3 DESC LIMIT 3;
SQL
}

# The command line of real-program row ROW (sed, jq, sqlite) on the inputs in DIR. No quoted
# arguments (scripts go in files): callers word-split it.
real_program_cmd() {
	case $1 in
	sed) echo "sed -E -f $2/sed.script $2/sed.txt" ;;
	jq) echo "jq -c -f $2/prog.jq $2/in.json" ;;
	sqlite) echo "sqlite3 -batch -init $2/ins.sql :memory: .quit" ;;
	*) return 1 ;;
	esac
}
