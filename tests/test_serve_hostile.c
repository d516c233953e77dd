/*
 * test_serve_hostile.c - hostile input on the serving, validation and cost
 * paths (issue 31's reproducers, rebuilt small here), through the commands
 * and the library: each ends with exit status 1 or 2 and a message naming
 * what was found and the limit, or with a correct result, within 20 s and
 * (outside the sanitizer build) 4 GB of address space.
 *
 *  - a result file's request count below twice the scenario's warm-up
 *    (a heap overflow in the statistics' window);
 *  - --append-result's fallback on a FIFO, a character device, a file past
 *    the size limit, more records than the limit;
 *  - simulated work past the limits: requests, requests x tokens (scenario
 *    and result file), replicas, the arrivals' span (request_rate 1e-9),
 *    cost's sizing runs, months x draws;
 *  - seed 2^63, --rate's malformed numbers, trace cells (hexadecimal,
 *    spaces, 1e308, arrivals backwards), percentile keys read by strtod,
 *    a measured latency of 1e-320 ms, escapes in result labels;
 *  - serving tokens a month of 1e20 (the replica count overflowed);
 *  - serve --search at a rate its requests can only burst, and plain
 *    serve at one (no SLO verdict on a drained backlog);
 *  - check on a serving scenario past the work limits;
 *  - report -o DIR where DIR/index.html is a folder (DIR left as it was);
 *  - DeepSeek configs with no MoE layer, n_group not dividing the
 *    experts, unread numbers of 1e308; invalid UTF-8 in a name;
 *  - uniform lengths whose range passes max_model_len.
 */
#include "harness.h"
#include "core/util.h"
#include "serve/servecheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __SANITIZE_ADDRESS__
#define ULIMIT ""
#else
#define ULIMIT "ulimit -v 4194304; "
#endif

/* podplan ARGS run from the test's folder, bounded: its exit status, its
 * output in *out. Its CPU time (the machine may be shared: wall time says
 * little) past 20 s fails the check; a run that hangs is killed. */
static int run(const char *args, char **out)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), ULIMIT "cd %s && timeout -s KILL 120 %s%s %s", pp_t_tmpdir(),
		 pp_t_bin()[0] == '/' ? "" : "$OLDPWD/", pp_t_bin(), args);
	struct rusage r0, r1;
	getrusage(RUSAGE_CHILDREN, &r0);
	int rc = pp_t_sh(cmd, out);
	getrusage(RUSAGE_CHILDREN, &r1);
	double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
		     (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
		     1e-6 * (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec +
				     r1.ru_stime.tv_usec - r0.ru_stime.tv_usec);
	if (cpu > 20)
		pp_t_diag("podplan %s took %.1f s of CPU", args, cpu);
	CHECK(cpu < 20);
	CHECK(rc != -1 && rc != 137); /* ended by itself */
	return rc;
}

static const char *tmp(const char *name)
{
	static char buf[4][600];
	static int k;
	char *b = buf[k++ % 4];
	snprintf(b, sizeof(buf[0]), "%s/%s", pp_t_tmpdir(), name);
	return b;
}

static void write_text(const char *name, const char *text)
{
	pp_err err = {0};
	CHECK(pp_write_file_atomic(tmp(name), text, strlen(text), &err) == 0);
}

/* A serving scenario s.json: llama3-8b on one H100, extra serving keys and
 * the workload (and anything after it). */
static void scenario(const char *name, const char *serving, const char *rest)
{
	char buf[4096];
	snprintf(buf, sizeof(buf), "{\"name\": \"t\", \"model\": {\"preset\": \"llama3-8b\", "
		 "\"seq_length\": 4096}, \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 1}, "
		 "\"serving\": {\"engine\": \"vllm\"%s}, %s}\n", serving, rest);
	write_text(name, buf);
}

/* The number at "key": in what `podplan ARGS` prints (exit 0), NAN if absent. */
static double json_num(const char *args, const char *key)
{
	char *out = NULL, k[64];
	double v = NAN;
	snprintf(k, sizeof(k), "\"%s\":", key);
	if (run(args, &out) == 0 && out) {
		const char *p = strstr(out, k);
		if (p)
			v = strtod(p + strlen(k), NULL);
	}
	free(out);
	return v;
}

/* Exit status want and the output holding needle. */
static void expect(const char *args, int want, const char *needle)
{
	char *out = NULL;
	int rc = run(args, &out);
	if (rc != want || !strstr(out ? out : "", needle))
		pp_t_diag("podplan %s: exit %d (want %d): %s", args, rc, want, out ? out : "");
	CHECK(rc == want);
	CHECK_CONTAINS(out ? out : "", needle);
	free(out);
}

static void warmup_overflow(void)
{
	scenario("s.json", "", "\"workload\": {\"num_prompts\": 40, \"input_len\": 64, "
		 "\"output_len\": 8, \"warmup_requests\": 10}");
	write_text("r.json", "{\"num_prompts\": 2, \"request_throughput\": 3.0}\n");
	expect("validate --serve r.json s.json", 2, "num_prompts: found 2 requests");
	write_text("r.json", "{\"completed\": 20, \"request_throughput\": 3.0}\n");
	expect("validate --serve r.json s.json", 2, "warmup_requests = 10");
	/* 21 leaves one request counted: a result */
	write_text("r.json", "{\"num_prompts\": 21, \"request_throughput\": 3.0}\n");
	expect("validate --serve r.json s.json", 0, "request_throughput");
}

static void append_result_fallback(void)
{
	scenario("s.json", "", "\"workload\": {\"num_prompts\": 10, \"input_len\": 64, "
		 "\"output_len\": 8}");
	unlink(tmp("fifo"));
	CHECK(mkfifo(tmp("fifo"), 0600) == 0);
	expect("validate --serve fifo s.json", 2, "expected a regular file");
	expect("validate --serve /dev/zero s.json", 2, "expected a regular file");
	/* a store that is a FIFO: its header read blocked forever */
	expect("calib list --db fifo", 2, "is not a regular file");
	expect("report -o rf --db fifo s.json", 2, "is not a regular file");
	/* past the size limit, as JSON lines: refused before it is read */
	FILE *f = fopen(tmp("big.jsonl"), "w");
	const char *line = "{\"num_prompts\": 4, \"request_throughput\": 1.0, \"label\": "
			   "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n";
	size_t n = 0;
	while (n <= PP_JDOC_MAX_BYTES) {
		fputs(line, f);
		n += strlen(line);
	}
	fclose(f);
	expect("validate --serve big.jsonl s.json", 2, "larger than");
	/* more records than are simulated */
	f = fopen(tmp("many.jsonl"), "w");
	for (int i = 0; i <= PP_SCHECK_MAX_RECORDS; i++)
		fputs("{\"num_prompts\": 4, \"request_throughput\": 1.0}\n", f);
	fclose(f);
	expect("validate --serve many.jsonl s.json", 2, "found more than 1000 records");
}

static void work_limits(void)
{
	scenario("s.json", "", "\"workload\": {\"num_prompts\": 100000000}");
	expect("serve s.json", 2, "workload.num_prompts");
	scenario("s.json", "", "\"workload\": {\"num_prompts\": 100000, \"input_len\": 16, "
		 "\"output_len\": 4000}");
	expect("serve s.json", 2, "above the limit of 2e+07 tokens");
	/* a result file's count replaces the scenario's: the same limit */
	scenario("s.json", "", "\"workload\": {\"num_prompts\": 10, \"input_len\": 64, "
		 "\"output_len\": 8}");
	write_text("r.json", "{\"num_prompts\": 100000000, \"request_throughput\": 1.0}\n");
	expect("validate --serve r.json s.json", 2, "above the limit");
	/* replicas: every one's state was allocated up front */
	write_text("s.json", "{\"name\": \"t\", \"model\": {\"preset\": \"llama3-8b\", "
		   "\"seq_length\": 4096}, \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": "
		   "1048576}, \"serving\": {\"data_parallel_size\": 1048576}, \"workload\": "
		   "{\"num_prompts\": 10}}\n");
	expect("serve s.json", 2, "serving.data_parallel_size");
	/* 40 requests at 1e-9/s span 4e10 s: the clock's resolution is gone */
	scenario("s.json", "", "\"workload\": {\"num_prompts\": 40, \"request_rate\": 1e-9}");
	expect("serve s.json", 2, "arrivals span");
	/* cost sizes each option with ~40 runs: 3e6 tokens a run is too much */
	scenario("s.json", "", "\"workload\": {\"num_prompts\": 3000, \"input_len\": 512, "
		 "\"output_len\": 512}, \"slo\": {\"ttft_ms\": 500}, \"costs\": {\"work\": "
		 "{\"type\": \"inference\", \"input_tokens_per_month\": 1e9, "
		 "\"output_tokens_per_month\": 1e9}, \"options\": [{\"name\": \"r\", \"kind\": "
		 "\"rent\", \"provider\": \"runpod\", \"tier\": \"on_demand\", \"cluster\": "
		 "{\"num_gpus\": 1}}]}");
	expect("cost s.json", 2, "simulated tokens a command");
}

static void numbers(void)
{
	scenario("s.json", "", "\"workload\": {\"num_prompts\": 10, \"seed\": 9223372036854775808}");
	expect("serve s.json", 2, "workload.seed");
	scenario("s.json", "", "\"workload\": {\"num_prompts\": 10, \"input_len\": 64, "
		 "\"output_len\": 8}");
	static const char *const bad[] = {"-inf", "-1e999", "-infXYZ", "infinityjunk", "1e-300",
					  "' 5'", "0x10", "nan", "5x"};
	for (size_t i = 0; i < PP_ARRAY_LEN(bad); i++) {
		char args[256];
		snprintf(args, sizeof(args), "serve s.json --rate %s", bad[i]);
		expect(args, 2, "--rate: found");
		snprintf(args, sizeof(args), "serve --search s.json --rate %s", bad[i]);
		expect(args, 2, "--rate: found");
	}
	expect("serve s.json --rate 2.5e1 --json", 0, "\"request_rate\":\t25");
	expect("serve s.json --rate inf --json", 0, "\"num_prompts\"");
}

static void trace_cells(void)
{
	write_text("t.json", "{\"name\": \"t\", \"model\": {\"preset\": \"llama3-8b\"}, \"cluster\": "
		   "{\"gpu\": \"h100-sxm\", \"num_gpus\": 1}, \"serving\": {}, \"workload\": "
		   "{\"trace\": \"t.csv\"}}\n");
	static const char *const bad[][2] = {
		{"arrival_s,input_len,output_len\n0,100,10\n0x10,200,20\n", "t.csv:3: arrival_s"},
		{"arrival_s,input_len,output_len\n0,100,10\n 1,200,20\n", "t.csv:3: arrival_s"},
		{"arrival_s,input_len,output_len\n0,0x40,10\n", "t.csv:2: input_len"},
		{"arrival_s,input_len,output_len\n1e308,100,10\n", "t.csv:2: arrival_s"},
		{"arrival_s,input_len,output_len\n1,100,10\n0.5,200,20\n", "before the row above"},
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(bad); i++) {
		write_text("t.csv", bad[i][0]);
		expect("serve t.json", 2, bad[i][1]);
	}
	/* a trace replays as recorded (not as one burst) and prints its own
	 * lengths: 3 requests over 10 s take more than 10 s */
	write_text("t.csv", "arrival_s,input_len,output_len\n0,100,10\n5,200,20\n10,300,30\n");
	expect("serve t.json", 0, "3 requests from a trace: input mean 200.0, median 200; output "
	       "mean 20.0, median 20 tokens; arrivals over 10.00 s, mean rate 0.2 req/s; replayed "
	       "at their recorded times");
	double d10 = json_num("serve t.json --json", "duration");
	CHECK(d10 > 10 && d10 < 11);
	/* --rate 0.4 req/s: the gaps halved (the last sent at 5 s) */
	double d5 = json_num("serve t.json --json --rate 0.4", "duration");
	CHECK(d5 > 5 && d5 < 6 && fabs((d10 - 10) - (d5 - 5)) < 1e-6);
	expect("serve t.json --rate 0.4", 0, "replayed at 0.4 req/s (inter-arrival times x 0.5)");
	/* the same requests arriving together wait for each other: a longer
	 * mean TTFT than one at a time on an idle replica */
	double t_apart = json_num("serve t.json --json", "mean_ttft_ms");
	write_text("t.csv", "arrival_s,input_len,output_len\n0,100,10\n0,200,20\n0,300,30\n");
	double t_together = json_num("serve t.json --json", "mean_ttft_ms");
	CHECK(t_apart > 0 && t_together > t_apart);
	expect("serve t.json --rate 2", 2, "every arrival at one time");
	/* a row longer than max_model_len: refused naming it, or rejected */
	write_text("t.csv", "arrival_s,input_len,output_len\n0,100,10\n1,9000,20\n2,300,30\n");
	expect("serve t.json", 2, "t.csv:3: input_len + output_len");
	write_text("t.json", "{\"name\": \"t\", \"model\": {\"preset\": \"llama3-8b\"}, \"cluster\": "
		   "{\"gpu\": \"h100-sxm\", \"num_gpus\": 1}, \"serving\": {}, \"workload\": "
		   "{\"trace\": \"t.csv\", \"over_length\": \"reject\"}}\n");
	CHECK(json_num("serve t.json --json", "rejected") == 1);
	CHECK(json_num("serve t.json --json", "completed") == 2);
}

/* vLLM refuses a prompt longer than max_model_len: never cut to fit */
static void over_length(void)
{
	scenario("o.json", ", \"max_model_len\": 8192", "\"workload\": {\"num_prompts\": 20, "
		 "\"input_len\": 20000, \"output_len\": 1, \"range_ratio\": 0.5}");
	expect("serve o.json", 2, "input 30000 + output 2 tokens; expected at most "
	       "serving.max_model_len = 8192");
	scenario("o.json", ", \"max_model_len\": 8192", "\"workload\": {\"num_prompts\": 20, "
		 "\"input_len\": {\"distribution\": \"normal\", \"mean\": 7000, \"stddev\": 2000}, "
		 "\"output_len\": 512}");
	expect("serve o.json", 2, "above serving.max_model_len = 8192");
	scenario("o.json", ", \"max_model_len\": 8192", "\"workload\": {\"num_prompts\": 20, "
		 "\"input_len\": {\"distribution\": \"normal\", \"mean\": 7000, \"stddev\": 2000}, "
		 "\"output_len\": 512, \"over_length\": \"reject\"}");
	double done = json_num("serve o.json --json", "completed");
	double rej = json_num("serve o.json --json", "rejected");
	/* P(N(7000, 2000) > 8192 - 512 = 7680) = 0.37: some of 20 each way */
	CHECK(done + rej == 20 && rej >= 1 && done >= 1);
	CHECK(json_num("serve o.json --json", "total_output_tokens") == 512 * done);
}

static void result_keys(void)
{
	write_text("r.json", "{\"request_throughput\": 1.0, \"p0x10_ttft_ms\": 5, \"p 50_ttft_ms\": "
		   "6, \"p50_ttft_ms\": 7, \"p99.9_ttft_ms\": 8, \"p1e1_ttft_ms\": 9}\n");
	pp_scheck_bench *b = NULL;
	size_t n = 0;
	pp_err err = {0};
	CHECK(pp_scheck_load(tmp("r.json"), &b, &n, &err) == 0);
	CHECK(n == 1);
	if (n == 1) {
		CHECK(b->nfigs == 3); /* request_throughput, p50, p99.9 */
		for (int i = 0; i < b->nfigs; i++)
			CHECK(strcmp(b->figs[i].key, "p0x10_ttft_ms") && strcmp(b->figs[i].key, "p 50_ttft_ms"));
	}
	free(b);
	/* a latency of 1e-320 ms: not compared (no +inf% error) */
	scenario("s.json", "", "\"workload\": {\"num_prompts\": 10, \"input_len\": 64, "
		 "\"output_len\": 8}");
	write_text("r.json", "{\"num_prompts\": 10, \"request_throughput\": 1.0, "
		   "\"mean_ttft_ms\": 1e-320}\n");
	char *out = NULL;
	CHECK(run("validate --serve r.json s.json", &out) == 0);
	CHECK(out && !strstr(out, "inf%") && !strstr(out, "mean_ttft_ms"));
	free(out);
	/* a label and a model id with escape sequences: escaped on the terminal */
	write_text("r.jsonl", "{\"num_prompts\": 10, \"request_throughput\": 1.0, \"label\": "
		   "\"\\u001b]0;pwned\\u0007x\\u001b[2J\"}\n{\"num_prompts\": 10, "
		   "\"request_throughput\": 2.0, \"model_id\": \"a\\u001b[31mred\\u009b\"}\n");
	CHECK(run("validate --serve r.jsonl s.json", &out) == 0);
	CHECK(out && !strchr(out, 0x1b) && !strchr(out, 0x07) && !strstr(out, "\xc2\x9b"));
	CHECK_CONTAINS(out ? out : "", "\\x1b]0;pwned\\x07x");
	free(out);
}

static void cost_replicas(void)
{
	scenario("s.json", "", "\"workload\": {\"num_prompts\": 20, \"input_len\": 64, "
		 "\"output_len\": 16}, \"slo\": {\"ttft_ms\": 2000}, \"costs\": {\"work\": "
		 "{\"type\": \"inference\", \"input_tokens_per_month\": 1e20, "
		 "\"output_tokens_per_month\": 1e20}, \"uncertainty\": {\"draws\": 10}, "
		 "\"options\": [{\"name\": \"r\", \"kind\": \"rent\", \"provider\": \"runpod\", "
		 "\"tier\": \"on_demand\", \"cluster\": {\"num_gpus\": 1}}]}");
	char *out = NULL;
	int rc = run("cost s.json", &out);
	CHECK(rc == 0);
	CHECK(out && !strstr(out, "-2147483648") && !strstr(out, "4232387814"));
	CHECK_CONTAINS(out ? out : "", "more than the 1e+07 GPUs");
	free(out);
}

static void search_burst(void)
{
	write_text("q.json", "{\"name\": \"q\", \"model\": {\"preset\": \"llama3-8b\", \"seq_length\": "
		   "4096}, \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 1}, \"serving\": "
		   "{\"engine\": \"vllm\", \"tensor_parallel_size\": 1, \"pipeline_parallel_size\": 1, "
		   "\"max_num_seqs\": 64, \"max_num_batched_tokens\": 2048}, \"workload\": "
		   "{\"num_prompts\": 50, \"input_len\": 128, "
		   "\"output_len\": 16}, \"slo\": {\"ttft_ms\": 5000, \"tpot_ms\": 200, "
		   "\"percentile\": 99}}\n");
	char *out = NULL;
	CHECK(run("serve --search q.json --rate 1e9", &out) == 1); /* none meets */
	CHECK(out && !strstr(out, "Pick") && !strstr(out, "per 1M output tokens"));
	CHECK_CONTAINS(out ? out : "", "No option run meets the SLO");
	free(out);
	/* a rate it keeps up with still meets */
	CHECK(run("serve --search q.json --rate 2", &out) == 0);
	CHECK_CONTAINS(out ? out : "", "meets the SLO at 2 req/s");
	free(out);
}

/* Plain serve at a rate far past what one replica completes, with an SLO
 * loose enough that the drained backlog met it: no verdict, the rates */
static void serve_burst(void)
{
	scenario("b.json", ", \"max_num_seqs\": 64, \"max_num_batched_tokens\": 2048",
		 "\"workload\": {\"num_prompts\": 50, \"input_len\": 128, \"output_len\": 16, "
		 "\"request_rate\": 1e6}, \"slo\": {\"ttft_ms\": 600000, \"tpot_ms\": 10000, "
		 "\"percentile\": 99}");
	char *out = NULL;
	CHECK(run("serve b.json", &out) == 0);
	CHECK_CONTAINS(out ? out : "", "Rate       NOT sustained: 1e+06 req/s offered");
	CHECK_CONTAINS(out ? out : "", "-> not judged (the rate was not sustained)");
	CHECK(out && !strstr(out, "-> holds"));
	free(out);
	CHECK(run("serve --json b.json", &out) == 0);
	CHECK_CONTAINS(out ? out : "", "\"verdict\":\t\"not sustained\"");
	CHECK_CONTAINS(out ? out : "", "\"met\":\tfalse");
	CHECK_CONTAINS(out ? out : "", "\"sustained\":\tfalse");
	CHECK_CONTAINS(out ? out : "", "\"offered_rps\":\t1000000");
	free(out);
	/* a trace's offered rate is its own: 50 rows in 49 us */
	char csv[4096] = "arrival_s,input_len,output_len\n";
	for (int i = 0; i < 50; i++)
		snprintf(csv + strlen(csv), sizeof(csv) - strlen(csv), "%g,128,16\n", i * 1e-6);
	write_text("bt.csv", csv);
	scenario("bt.json", ", \"max_num_seqs\": 64, \"max_num_batched_tokens\": 2048",
		 "\"workload\": {\"trace\": \"bt.csv\"}, \"slo\": {\"ttft_ms\": 600000, "
		 "\"tpot_ms\": 10000, \"percentile\": 99}");
	CHECK(run("serve bt.json", &out) == 0);
	CHECK_CONTAINS(out ? out : "", "Rate       NOT sustained: 1e+06 req/s offered");
	CHECK_CONTAINS(out ? out : "", "-> not judged");
	free(out);
	/* a rate it keeps up with: the verdict as before, no rate lines */
	CHECK(run("serve --rate 2 b.json", &out) == 0);
	CHECK_CONTAINS(out ? out : "", "-> holds");
	CHECK(out && !strstr(out, "sustained"));
	free(out);
	CHECK(run("serve --json --rate 2 b.json", &out) == 0);
	CHECK(out && !strstr(out, "sustained") && !strstr(out, "\"rate\":"));
	free(out);
}

/* check applies serve's work limits to a serving scenario */
static void check_limits(void)
{
	scenario("c.json", "", "\"workload\": {\"num_prompts\": 100000000}");
	expect("check c.json", 2, "workload.num_prompts");
	scenario("c.json", "", "\"workload\": {\"num_prompts\": 100000, \"input_len\": 16, "
		 "\"output_len\": 4000}");
	expect("check c.json", 2, "above the limit of 2e+07 tokens");
	write_text("c.json", "{\"name\": \"t\", \"model\": {\"preset\": \"llama3-8b\", "
		   "\"seq_length\": 4096}, \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": "
		   "8192}, \"serving\": {\"data_parallel_size\": 8192}, \"workload\": "
		   "{\"num_prompts\": 10}}\n");
	expect("check c.json", 2, "serving.data_parallel_size");
	scenario("c.json", "", "\"workload\": {\"num_prompts\": 10, \"input_len\": 64, "
		 "\"output_len\": 8}");
	expect("check c.json", 0, "c.json: OK");
}

static void report_folder(void)
{
	char d[700], cmd[1600];
	snprintf(d, sizeof(d), "%s/rep", pp_t_tmpdir());
	CHECK(mkdir(d, 0700) == 0);
	snprintf(cmd, sizeof(cmd), "%s/index.html", d);
	CHECK(mkdir(cmd, 0700) == 0);
	snprintf(cmd, sizeof(cmd), "%s/summary.md", d);
	FILE *f = fopen(cmd, "w");
	fputs("old\n", f);
	fclose(f);
	char args[1600];
	snprintf(args, sizeof(args), "report -o rep --db rep.db %s/scenarios/default.json",
		 getcwd(cmd, sizeof(cmd)));
	expect(args, 1, "index.html: is a folder");
	/* the folder as it was: the old summary, no CSV, index.html a folder */
	char *out = NULL;
	snprintf(cmd, sizeof(cmd), "cd %s && ls -A && cat summary.md", d);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK(out && !strcmp(out, "index.html\nsummary.md\nold\n"));
	free(out);
}

/* check and the report describe the serving deployment the scenario
 * runs (TP 2, FP8, the scheduler's limits, the workload, the SLO), not a
 * training layout; the step chart says serve simulated the options */
static void serving_described(void)
{
	write_text("d.json", "{\"name\": \"d\", \"model\": {\"preset\": \"llama3-8b\", "
		   "\"seq_length\": 4096}, \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 4}, "
		   "\"serving\": {\"engine\": \"vllm\", \"tensor_parallel_size\": 2, \"precision\": "
		   "\"fp8\", \"kv_cache_dtype\": \"fp8\", \"max_num_seqs\": 96, "
		   "\"max_num_batched_tokens\": 4096}, \"workload\": {\"num_prompts\": 40, "
		   "\"input_len\": 512, \"output_len\": 32, \"request_rate\": 4}, \"slo\": "
		   "{\"ttft_ms\": 500, \"tpot_ms\": 30, \"percentile\": 90}, \"costs\": {\"work\": "
		   "{\"type\": \"inference\", \"input_tokens_per_month\": 1e9, "
		   "\"output_tokens_per_month\": 1e8}, \"uncertainty\": {\"draws\": 100, \"seed\": 1}, "
		   "\"options\": [{\"name\": \"rent-pod\", \"kind\": \"rent\", \"provider\": "
		   "\"runpod\", \"tier\": \"on_demand\", \"cluster\": {\"num_gpus\": 2}}]}}\n");
	static const char *const want[] = {
		"serving    vllm, TP 2 x PP 1 x DP 2 (replicas), 4 GPUs of 4 x h100-sxm",
		"fp8 weights and GEMMs, KV cache fp8 (kv_cache_dtype fp8)",
		"scheduler  max_num_seqs 96, max_num_batched_tokens 4096, max_model_len 4096",
		"workload   40 prompts, input 512, output 32 tokens, request rate 4 req/s (Poisson)",
		"slo        p90 TTFT <= 500 ms, TPOT <= 30 ms",
		"costs      inference work of 1e+09 input + 1e+08 output tokens a month, 1 option: "
		"rent-pod"};
	char *out = NULL;
	CHECK(run("check d.json", &out) == 0);
	for (size_t i = 0; i < PP_ARRAY_LEN(want); i++)
		if (!out || !strstr(out, want[i])) {
			CHECK(!"check prints the deployment");
			pp_t_diag("missing: %s", want[i]);
		}
	CHECK(out && !strstr(out, "training   global batch") && !strstr(out, "parallel   TP 1"));
	free(out);
	CHECK(run("report -o drep --db d.db --draws 100 d.json", &out) == 0);
	free(out);
	char cmd[1200];
	snprintf(cmd, sizeof(cmd), "cd %s/drep && cat index.html", pp_t_tmpdir());
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK(out && strstr(out, "model, deployment and cluster") &&
	      strstr(out, "Deployment vllm, TP 2 x PP 1 x DP 2 (replicas)") &&
	      strstr(out, "fp8 weights and GEMMs, KV cache fp8") &&
	      strstr(out, "Scheduler max_num_seqs 96, max_num_batched_tokens 4096") &&
	      strstr(out, "SLO p90 TTFT &lt;= 500 ms"));
	CHECK(out && !strstr(out, "global batch") && !strstr(out, "published figures") &&
	      strstr(out, "podplan serve"));
	free(out);
}

static void hf_moe(void)
{
	/* DeepSeek-V3's shapes, two layers: every layer dense, or n_group 7 */
	static const char *const cfg =
		"{\"model_type\": \"deepseek_v3\", \"hidden_size\": 1024, \"intermediate_size\": "
		"4096, \"num_hidden_layers\": 2, \"num_attention_heads\": 8, "
		"\"num_key_value_heads\": 8, \"vocab_size\": 32000, \"max_position_embeddings\": "
		"4096, \"q_lora_rank\": 256, \"kv_lora_rank\": 128, \"qk_nope_head_dim\": 64, "
		"\"qk_rope_head_dim\": 32, \"v_head_dim\": 64, \"n_routed_experts\": 16, "
		"\"num_experts_per_tok\": 4, \"moe_intermediate_size\": 512, \"n_shared_experts\": 1, "
		"\"moe_layer_freq\": 1, \"num_nextn_predict_layers\": 0, %s}\n";
	static const char *const cases[][3] = {
		{"\"first_k_dense_replace\": 2, \"n_group\": 4, \"topk_group\": 2", "0", "Model"},
		{"\"first_k_dense_replace\": 1, \"n_group\": 7, \"topk_group\": 2", "2", "n_group"},
		{"\"first_k_dense_replace\": 1, \"n_group\": 4, \"topk_group\": 5", "2", "topk_group"},
		{"\"first_k_dense_replace\": 1, \"routed_scaling_factor\": 1e308", "2",
		 "routed_scaling_factor: found 1e+308"},
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(cases); i++) {
		char buf[2048];
		snprintf(buf, sizeof(buf), cfg, cases[i][0]);
		write_text("hf.json", buf);
		write_text("h.json", "{\"name\": \"h\", \"model\": {\"hf_config\": \"hf.json\"}, "
			   "\"training\": {\"global_batch_size\": 8, \"micro_batch_size\": 1}, "
			   "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8, \"gpus_per_node\": "
			   "8}}\n");
		char *out = NULL;
		int rc = run("predict h.json", &out);
		CHECK(rc == atoi(cases[i][1]));
		CHECK_CONTAINS(out ? out : "", cases[i][2]);
		if (i == 0) /* no MoE layer: no experts printed */
			CHECK(out && !strstr(out, "Experts"));
		free(out);
	}
}

static void names_and_lengths(void)
{
	write_text("u.json", "{\"name\": \"bad\xff\xfe\", \"model\": {\"preset\": \"llama3-8b\"}, "
		   "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 1}}\n");
	expect("check u.json", 2, "not valid UTF-8");
	/* 3000 x 1.5 + 64 > 4096: vLLM refuses what the range draws */
	scenario("s.json", "", "\"workload\": {\"num_prompts\": 10, \"input_len\": 3000, "
		 "\"output_len\": 64, \"range_ratio\": 0.5}");
	expect("serve s.json", 2, "workload.range_ratio");
	scenario("s.json", "", "\"workload\": {\"num_prompts\": 10, \"input_len\": 2000, "
		 "\"output_len\": 64, \"range_ratio\": 0.5}");
	expect("serve s.json", 0, "Workload");
}

/* calib import-nccl-tests: past the rows or the bytes a log may hold,
 * refused before the store is written (it held the write lock for 45 s) */
static void nccl_log_limits(void)
{
	const char *src = "tests/data/nccl-tests/all_gather_perf.16ranks.2nodes.log";
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "sed -n '1,27p' %s > %s && i=0; awk 'BEGIN { for (i = 0; i < "
		 "100001; i++) print \"        1024            16     float    none      -1    "
		 "35.02    0.03    0.03      0    35.02    0.03    0.03      0\" }' >> %s",
		 src, tmp("rows.log"), tmp("rows.log"));
	char *out = NULL;
	CHECK(pp_t_sh(cmd, &out) == 0);
	free(out);
	expect("calib import-nccl-tests rows.log --db n.db", 2, "more than 100000 result rows");
	snprintf(cmd, sizeof(cmd), "head -c 17000000 /dev/zero | tr '\\0' ' ' > %s", tmp("big.log"));
	CHECK(pp_t_sh(cmd, &out) == 0);
	free(out);
	expect("calib import-nccl-tests big.log --db n.db", 2, "larger than");
	struct stat st;
	CHECK(stat(tmp("n.db"), &st) != 0 || st.st_size < 200000); /* no rows stored */
}

int main(void)
{
	RUN(warmup_overflow);
	RUN(append_result_fallback);
	RUN(work_limits);
	RUN(numbers);
	RUN(trace_cells);
	RUN(over_length);
	RUN(result_keys);
	RUN(cost_replicas);
	RUN(search_burst);
	RUN(serve_burst);
	RUN(check_limits);
	RUN(report_folder);
	RUN(serving_described);
	RUN(hf_moe);
	RUN(names_and_lengths);
	RUN(nccl_log_limits);
	return pp_t_done("test_serve_hostile");
}
