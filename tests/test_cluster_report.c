/*
 * test_cluster_report.c - a cluster simulation's report (reports/
 * clusterrep.h) and sweeps of specs (cluster/csweep.h), through the
 * command as people run it:
 *  - a sweep of tests/data/cluster/small.json (4 nodes of 8 GPUs, no
 *    failures) on tests/data/cluster/jobs.csv (a 32-GPU job at 0 s for
 *    1000 s; 8, 4 and 16 GPUs at 10, 20, 30 s for 500, 100, 200 s) against
 *    a hand calculation: on 32 GPUs the three small jobs wait for the big
 *    one (delays 990, 980, 970 s), on 64 they start at once;
 *  - every sweep point equals the single run with the same --what-if;
 *  - `mpirun -np 2` and `-np 3` print the serial table byte for byte;
 *  - bad sweep keys and values exit 2 with the key named, nothing printed;
 *  - --report DIR: the charts are there, the CDF's quantiles are the hand
 *    calculation's, the timeline is --timeline-csv's, the waterfall's
 *    levels are the hand GPU-hours, and two runs give the same bytes;
 *  - `podplan report` of a scenario whose utilisation comes from a cluster
 *    simulation carries the section and its CSVs; one without, not.
 */
#include "harness.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define D "tests/data/cluster/"
#define SMALL D "small.json " D "jobs.csv"
#define TEAM "scenarios/cluster/h100-32.json scenarios/cluster/team-month-jobs.csv"

static int run(const char *args, char **out, bool with_stderr)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "%s cluster %s %s", pp_t_bin(), args,
		 with_stderr ? "2>&1" : "2>/dev/null");
	return pp_t_sh(cmd, out);
}

/* the CSV cell of row (1-based after the header) and column name */
static double cell(const char *csv, int row, const char *col)
{
	const char *nl = strchr(csv, '\n');
	if (!nl)
		return NAN;
	int c = 0, want = -1;
	for (const char *p = csv; p < nl; p++) {
		if (!strncmp(p, col, strlen(col)) && (p == csv || p[-1] == ',') &&
		    (p[strlen(col)] == ',' || p[strlen(col)] == '\r' || p[strlen(col)] == '\n')) {
			want = c;
			break;
		}
		if (*p == ',')
			c++;
	}
	if (want < 0)
		return NAN;
	const char *p = nl + 1;
	for (int r = 1; r < row && p; r++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p || !*p)
		return NAN;
	for (int k = 0; k < want && p; k++) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p || *p == ',' || *p == '\r' || *p == '\n')
		return NAN;
	return strtod(p, NULL);
}

static void sweep_hand(void)
{
	char *out = NULL;
	CHECK(run(SMALL " --sweep add_nodes=0,4 --sweep scheduler=builtin,backfill --csv", &out,
		  false) == 0);
	/* the first axis outermost */
	CHECK_CONTAINS(out, "\n0,builtin,");
	const char *r2 = strstr(out, "\n0,backfill,"), *r3 = strstr(out, "\n4,builtin,");
	CHECK(r2 && r3 && r2 < r3);
	for (int row = 1; row <= 4; row++) {
		bool big = row > 2;
		/* 32 GPUs: the big job 0-1000 s, the rest 1000-1500 s; 64: all at once,
		 * the big one last to end at 1000 s */
		double gpus = big ? 64 : 32, makespan = big ? 1000 : 1500;
		double alloc = 32 * 1000 + 8 * 500 + 4 * 100 + 16 * 200; /* GPU-s */
		CHECK_NEAR(cell(out, row, "gpus"), gpus, 1e-12);
		CHECK_NEAR(cell(out, row, "makespan_s"), makespan, 1e-9);
		CHECK_NEAR(cell(out, row, "scheduling_goodput"), alloc / (gpus * makespan), 1e-5);
		CHECK_NEAR(cell(out, row, "gpu_hours_useful"), alloc / 3600, 1e-6);
		/* $2.00 per available GPU-hour over the useful ones */
		CHECK_NEAR(cell(out, row, "usd_per_useful_gpu_hour"), 2.0 * gpus * makespan / alloc,
			   1e-6);
		/* delays 0, 990, 980, 970 s: mean 735, median 975, p99 980 + 0.97 x 10 */
		CHECK_NEAR(cell(out, row, "queue_mean_s") + 1, big ? 1 : 736, 1e-9);
		CHECK_NEAR(cell(out, row, "queue_median_s") + 1, big ? 1 : 976, 1e-9);
		CHECK_NEAR(cell(out, row, "queue_p99_s") + 1, big ? 1 : 990.7, 1e-9);
	}
	free(out);
	/* the text table: a header, then one line a point */
	CHECK(run(SMALL " --sweep add_nodes=0,4 --sweep scheduler=builtin,backfill", &out, false) ==
	      0);
	CHECK_CONTAINS(out, "sweep of 4 points on the same 4 jobs (seed 1)\n");
	CHECK_CONTAINS(out, "$/useful_GPU_h");
	int lines = 0;
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	CHECK(lines == 6);
	free(out);
}

/* a point of a sweep = the single run with that point's --what-if */
static void sweep_is_what_if(void)
{
	char *sw = NULL;
	CHECK(run(TEAM " --sweep placement=pack,spread --sweep fs_scale=1,0.01 --csv", &sw, false) ==
	      0);
	const char *pts[4][2] = {{"pack", "1"}, {"pack", "0.01"}, {"spread", "1"},
				 {"spread", "0.01"}};
	for (int i = 0; i < 4; i++) {
		char args[512], *j = NULL;
		snprintf(args, sizeof(args), TEAM " --what-if placement=%s --what-if fs_scale=%s --json",
			 pts[i][0], pts[i][1]);
		CHECK(run(args, &j, false) == 0);
		/* the "b" run's figures, printed with more digits than the CSV */
		const char *b = j ? strstr(j, "\"b\"") : NULL;
		const char *sg = b ? strstr(b, "\"scheduling_goodput\":") : NULL;
		const char *qm = b ? strstr(b, "\"queue_delay_by_size\"") : NULL;
		qm = qm ? strstr(qm, "\"all\"") : NULL;
		qm = qm ? strstr(qm, "\"mean_s\":") : NULL;
		CHECK(sg && qm);
		if (sg && qm) {
			CHECK_NEAR(cell(sw, i + 1, "scheduling_goodput"),
				   strtod(sg + strlen("\"scheduling_goodput\":"), NULL), 1e-5);
			CHECK_NEAR(cell(sw, i + 1, "queue_mean_s"),
				   strtod(qm + strlen("\"mean_s\":"), NULL), 1e-8);
		}
		free(j);
	}
	/* the file system a hundred times slower shows: checkpoints block longer */
	CHECK(cell(sw, 2, "runtime_goodput") < cell(sw, 1, "runtime_goodput"));
	free(sw);
}

static void sweep_mpi(void)
{
	char *out = NULL;
	if (pp_t_sh("command -v mpirun", &out) != 0) {
		pp_t_skip("mpirun not found (Debian: openmpi-bin)");
		free(out);
		return;
	}
	free(out);
	const char *args[] = {TEAM " --sweep add_nodes=0,4,8 --sweep placement=pack,spread",
			      TEAM " --sweep scheduler=builtin,backfill --sweep fs_scale=1,0.01 --csv",
			      SMALL " --sweep add_nodes=0,4,12 --sweep placement=spread,pack"};
	char *errf = pp_path_join(pp_t_tmpdir(), "mpi.err");
	for (size_t i = 0; i < PP_ARRAY_LEN(args); i++)
		for (int np = 2; np <= 3; np++) {
			char cmd[2048], *a = NULL, *b = NULL;
			snprintf(cmd, sizeof(cmd), "%s cluster %s 2>/dev/null", pp_t_bin(), args[i]);
			int s1 = pp_t_sh(cmd, &a);
			/* Open MPI's own allocations are reported as leaks under ASan */
			snprintf(cmd, sizeof(cmd), "ASAN_OPTIONS=detect_leaks=0 mpirun --oversubscribe "
				 "--allow-run-as-root -np %d %s cluster %s 2>%s", np, pp_t_bin(),
				 args[i], errf);
			int s2 = pp_t_sh(cmd, &b);
			CHECK(s1 == 0 && s2 == 0);
			CHECK(a && strlen(a) > 200);
			CHECK(a && b && !strcmp(a, b));
			if (a && b && strcmp(a, b))
				pp_t_diag("differs: %s\n--- serial\n%.800s\n--- mpirun -np %d\n%.800s",
					  args[i], a, np, b);
			char *e = NULL;
			size_t len;
			pp_err err = {0};
			char want[64];
			snprintf(want, sizeof(want), "Open MPI, %d ranks", np);
			CHECK(pp_read_file(errf, 1 << 20, &e, &len, &err) == 0);
			CHECK_CONTAINS(e, want);
			free(e);
			free(a);
			free(b);
		}
	/* a point the cluster cannot run (2 nodes for a 32-GPU job): the same
	 * message and status from both, nothing on stdout */
	char cmd[2048], *a = NULL, *b = NULL;
	snprintf(cmd, sizeof(cmd), "%s cluster " SMALL " --sweep add_nodes=0,-2,4 2>&1", pp_t_bin());
	int s1 = pp_t_sh(cmd, &a);
	snprintf(cmd, sizeof(cmd), "ASAN_OPTIONS=detect_leaks=0 mpirun --oversubscribe "
		 "--allow-run-as-root -np 2 %s cluster " SMALL " --sweep add_nodes=0,-2,4 2>&1 "
		 ">/dev/null | head -1", pp_t_bin());
	pp_t_sh(cmd, &b);
	CHECK(s1 == 2);
	CHECK_CONTAINS(a, "job a: found 32 GPUs on 4 nodes, expected at most the cluster's 16 GPUs");
	CHECK(a && b && !strcmp(a, b));
	free(a);
	free(b);
	free(errf);
}

/* on a terminal a sweep says which point runs and how far it is; not
 * otherwise */
static void sweep_progress(void)
{
	char cmd[2048], *out = NULL;
	if (pp_t_sh("command -v script", &out) != 0) {
		pp_t_skip("script(1) not found (Debian: bsdutils)");
		free(out);
		return;
	}
	free(out);
	snprintf(cmd, sizeof(cmd), "script -qec \"%s cluster " SMALL " --sweep add_nodes=0,4 "
		 ">/dev/null\" /dev/null", pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "\rcluster sweep: 0 of 2 points done; point 1 (add_nodes=0)");
	CHECK_CONTAINS(out, "cluster sweep: 1 of 2 points done; point 2 (add_nodes=4)");
	CHECK_CONTAINS(out, "cluster sweep: 2 points (serial)");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s cluster " SMALL " --sweep add_nodes=0,4 2>&1 >/dev/null",
		 pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK(out && !*out);
	free(out);
}

static void sweep_bad(void)
{
	struct {
		const char *args, *want;
	} bad[] = {
		{SMALL " --sweep colour=red", "unknown key \"colour\""},
		{SMALL " --sweep placement=pack,diagonal", "expected pack, spread or fgd"},
		{SMALL " --sweep topology=tree", "expected none, preferred or required"},
		{SMALL " --sweep add_nodes=0,-4", "add_nodes=-4: expected an integer that leaves"},
		{SMALL " --sweep add_nodes=two", "add_nodes=two"},
		{SMALL " --sweep fs_scale=0", "fs_scale=0: expected a positive factor"},
		{SMALL " --sweep placement=pack,", "found an empty value"},
		{SMALL " --sweep placement", "expected KEY=V1,V2"},
		{SMALL " --sweep placement=pack --sweep placement=spread", "given twice"},
		{SMALL " --sweep placement=pack --json", "--sweep prints one table"},
		{SMALL " --sweep placement=pack --what-if add_nodes=1", "--sweep prints one table"},
		{SMALL " --what-if placement=diagonal", "--what-if placement=diagonal"},
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(bad); i++) {
		char *out = NULL, *err = NULL, args[512];
		CHECK(run(bad[i].args, &out, false) == 2);
		CHECK(out && !*out); /* nothing on stdout */
		snprintf(args, sizeof(args), "%s", bad[i].args);
		CHECK(run(args, &err, true) == 2);
		CHECK_CONTAINS(err, bad[i].want);
		free(out);
		free(err);
	}
}

static char *slurp(const char *dir, const char *name)
{
	char *p = pp_path_join(dir, name), *t = NULL;
	size_t n;
	pp_err err = {0};
	if (pp_read_file(p, 1 << 24, &t, &n, &err))
		t = NULL;
	free(p);
	return t;
}

/* the queue_s of bucket b at probability p in queue_cdf.csv */
static double cdf_at(const char *csv, const char *b, const char *p)
{
	char key[64];
	snprintf(key, sizeof(key), "\n%s,", b);
	for (const char *l = csv ? strstr(csv, key) : NULL; l; l = strstr(l + 1, key)) {
		const char *c = strchr(l + 1, ','); /* after the bucket */
		c = c ? strchr(c + 1, ',') : NULL;  /* after jobs */
		if (c && !strncmp(c + 1, p, strlen(p)) && c[1 + strlen(p)] == ',')
			return strtod(c + 2 + strlen(p), NULL);
	}
	return NAN;
}

static void report_files(void)
{
	char *dir = pp_path_join(pp_t_tmpdir(), "crep"), *dir2 = pp_path_join(pp_t_tmpdir(), "crep2");
	char args[1024], *out = NULL;
	snprintf(args, sizeof(args), SMALL " --what-if add_nodes=4 --report %s", dir);
	CHECK(run(args, &out, false) == 0);
	CHECK_CONTAINS(out, "/index.html\n");
	free(out);
	char *html = slurp(dir, "index.html"), *cdf = slurp(dir, "queue_cdf.csv"),
	     *tl = slurp(dir, "timeline.csv"), *md = slurp(dir, "summary.md"),
	     *jobs = slurp(dir, "jobs.csv");
	CHECK(html && cdf && tl && md && jobs);
	if (!html || !cdf || !tl || !md || !jobs)
		goto out;
	CHECK_CONTAINS(html, "id=\"fig-cluster-allocation\"");
	CHECK_CONTAINS(html, "id=\"fig-cluster-queue\"");
	CHECK_CONTAINS(html, "id=\"fig-cluster-goodput\"");
	CHECK_CONTAINS(html, "id=\"fig-cluster-whatif\"");
	CHECK_CONTAINS(html, "What-if: B = what-if add_nodes=4");
	CHECK(strstr(html, "<script") == NULL);
	/* the waterfall: 39,600 GPU-s allocated and useful = 11 GPU-h of 13.33 held */
	CHECK_CONTAINS(html, "11 GPU-h (82.5% of held)");
	CHECK_CONTAINS(html, "$2.424");
	/* the CDF: all jobs 0, 970, 980, 990 s; 2-8 GPUs 980, 990; 9-64 GPUs 0, 970 */
	CHECK_NEAR(cdf_at(cdf, "all", "0.00") + 1, 1, 1e-12);
	CHECK_NEAR(cdf_at(cdf, "all", "0.50"), 975, 1e-9);
	CHECK_NEAR(cdf_at(cdf, "all", "1.00"), 990, 1e-9);
	CHECK_NEAR(cdf_at(cdf, "2-8", "0.50"), 985, 1e-9);
	CHECK_NEAR(cdf_at(cdf, "9-64", "0.50"), 485, 1e-9);
	CHECK_NEAR(cdf_at(cdf, "9-64", "0.25"), 242.5, 1e-9);
	CHECK(isnan(cdf_at(cdf, "1", "0.50"))); /* no 1-GPU job */
	/* the timeline is --timeline-csv's */
	CHECK(run(SMALL " --timeline-csv", &out, false) == 0);
	CHECK(out && !strcmp(out, tl));
	free(out);
	CHECK(run(SMALL " --csv", &out, false) == 0);
	CHECK(out && !strcmp(out, jobs));
	free(out);
	CHECK_CONTAINS(md, "what-if on the same 4 jobs");
	/* the same run, the same page */
	snprintf(args, sizeof(args), SMALL " --what-if add_nodes=4 --report %s", dir2);
	CHECK(run(args, &out, false) == 0);
	free(out);
	char *html2 = slurp(dir2, "index.html");
	CHECK(html2 && !strcmp(html, html2));
	free(html2);
	/* an unwritable report folder: exit status 1, named */
	CHECK(run(SMALL " --report /proc/version/x", &out, true) == 1);
	CHECK_CONTAINS(out, "/proc/version");
	free(out);
out:
	free(html);
	free(cdf);
	free(tl);
	free(md);
	free(jobs);
	free(dir);
	free(dir2);
}

static void scenario_report(void)
{
	struct {
		const char *scenario;
		bool cluster;
	} cases[] = {{"scenarios/team-cluster-utilization-build-or-rent.json", true},
		     {"scenarios/multinode-10gbe-or-infiniband-ndr.json", false}};
	for (size_t i = 0; i < PP_ARRAY_LEN(cases); i++) {
		char *dir = pp_path_join(pp_t_tmpdir(), i ? "srep1" : "srep0"), cmd[2048], *out = NULL;
		snprintf(cmd, sizeof(cmd), "%s report %s --draws 0 --db %s/store.db -o %s 2>&1",
			 pp_t_bin(), cases[i].scenario, pp_t_tmpdir(), dir);
		CHECK(pp_t_sh(cmd, &out) == 0);
		free(out);
		char *html = slurp(dir, "index.html"), *tl = slurp(dir, "cluster_timeline.csv"),
		     *cdf = slurp(dir, "cluster_queue_cdf.csv");
		CHECK(html != NULL);
		if (cases[i].cluster) {
			CHECK_CONTAINS(html, "<section id=\"cluster\">");
			CHECK_CONTAINS(html, "id=\"fig-cluster-goodput\"");
			CHECK_CONTAINS(html, "from a cluster simulation, not a constant");
			CHECK(tl && !strncmp(tl, "t_s,alloc_gpus,", 15));
			CHECK(cdf && strstr(cdf, "\nall,216,0.50,"));
			char *md = slurp(dir, "summary.md");
			CHECK_CONTAINS(md, "Utilisation: 46.7% from a cluster simulation");
			free(md);
		} else {
			CHECK(html && !strstr(html, "id=\"cluster\""));
			CHECK(!tl && !cdf);
		}
		free(html);
		free(tl);
		free(cdf);
		free(dir);
	}
}

int main(void)
{
	RUN(sweep_hand);
	RUN(sweep_is_what_if);
	RUN(sweep_mpi);
	RUN(sweep_progress);
	RUN(sweep_bad);
	RUN(report_files);
	RUN(scenario_report);
	return pp_t_done("cluster_report");
}
