/*
 * main.c - podplan-calibrate: measure a GPU pod (NCCL collectives, cuBLASLt
 * GEMMs, memory and host copies, storage, topology) into the podplan store,
 * and judge its health against the catalogs.
 *
 *   podplan-calibrate [sweep] [options]          one process, every GPU
 *   mpirun -np N podplan-calibrate [options]     one rank per GPU (Open MPI)
 */
#include "backend.h"
#include "calib/calibdb.h"
#include "input/catalog.h"
#include "gpu.h"
#include "health.h"
#include "mpiglue.h"
#include "overlap.h"
#include "plan.h"
#include "replay.h"
#include "core/store.h"
#include "sweep.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

typedef struct cli {
	pp_cal_opts o;
	const char *db, *gpu_sku, *storage_expect, *label;
	int ngpus, fake_gpus;
	double fake_delay_s;
	int progress;        /* -1 auto (a terminal), 0 off, 1 on */
	bool strict;
} cli;

static void help(const pp_cal_opts *d)
{
	printf(
		"usage: podplan-calibrate [sweep] [options]\n"
		"       mpirun -np N podplan-calibrate [options]   (one rank per GPU; multi-node)\n"
		"       podplan-calibrate verdict RUN [--db DB]      (judge a stored run again)\n"
		"       podplan-calibrate replay SCENARIO.json ...   (execute a simulated step; --help)\n"
		"       podplan-calibrate overlap [--db DB]          (collectives beside compute; --help)\n\n"
		"Measures this GPU pod and stores every figure, with its provenance, in the podplan\n"
		"store: NCCL collectives (nccl-tests' sizes, algbw/busbw, in- and out-of-place,\n"
		"every element checked), cuBLASLt GEMMs (bf16, fp16, fp8 e4m3, tf32; squares and the\n"
		"model presets' shapes per tensor-parallel shard), device copies, pinned host copies,\n"
		"storage, and the GPU link matrix. Each measurement is committed as it is taken: a\n"
		"run killed half-way keeps everything measured before. Ends with a health verdict\n"
		"(OK/SLOW against models/gpus.json, fabrics.json, kernels.json, storage.json with\n"
		"the thresholds of models/health.json).\n\n"
		"  --db DB              the store (default $PODPLAN_DB, else %s)\n"
		"  --quick              a pass of about a minute (sizes x4 up to 1 GiB, fewer shapes)\n"
		"  --only LIST          collective,gemm,memory,storage (default: all; storage needs\n"
		"                       --storage-path)\n"
		"  --skip LIST          the same names, left out\n"
		" collectives (nccl-tests' options):\n"
		"  -b, --minbytes SIZE  smallest size (default %zu; K, M, G = 1024^n)\n"
		"  -e, --maxbytes SIZE  largest size (default %zu = 8 GiB)\n"
		"  -f, --stepfactor N   multiply the size by N (default %d)\n"
		"  -i, --stepbytes SIZE add SIZE instead when -f is 1\n"
		"  -o, --ops LIST       all_reduce,all_gather,reduce_scatter,broadcast,alltoall,sendrecv\n"
		"  -d, --datatype T     float (default), bfloat16 or half\n"
		"  --groups LIST        GPU counts to measure (default 2, 4, 8 ... and all)\n"
		"  -n, --iters N        timed repeats per size (default %d; median, min, max over them)\n"
		"  -w, --warmup N       warm-up iterations (default %d)\n"
		"  -c, --check 0|1      check every result element (default 1)\n"
		"  --timeout S          a wait longer than S seconds is a hang: stop (default %.0f)\n"
		" GEMMs:\n"
		"  --gemm-dtypes LIST   bf16,fp16,fp8,tf32 (default all four)\n"
		"  --square-min N, --square-max N   square sizes, powers of 2 (default %lld..%lld)\n"
		"  --models LIST        model presets for transformer shapes: all (default), none,\n"
		"                       or ids from 'podplan catalog models'\n"
		"  --tp LIST            tensor-parallel degrees (default 1 and the GPU count)\n"
		"  --no-bwd             forward shapes only (default: also dgrad and wgrad)\n"
		"  --shapes-all-gpus    model shapes on every GPU (default: GPU 0; squares always\n"
		"                       run on every GPU, for the peer comparison)\n"
		" memory, storage:\n"
		"  --mem-max SIZE       largest copy (default 4 GiB; host copies stop at 1 GiB)\n"
		"  --storage-path DIR   measure sequential write and read of a checkpoint-sized file\n"
		"  --storage-bytes SIZE the file (default 4 GiB; --quick 512 MiB)\n"
		"  --storage-expect ID  the storage.json tier to judge against (default: health.json's)\n"
		" the run:\n"
		"  --gpus N             single process: the first N GPUs (default all visible)\n"
		"  --gpu-sku ID         the catalog GPU, when its name is not mapped in health.json\n"
		"  --label TEXT         a note stored with the run\n"
		"  --progress, --no-progress   the progress line (default: when stderr is a terminal)\n"
		"  --strict             exit 3 when the verdict has a SLOW row\n"
		"  --fake[=N]           no GPU: a pretend pod of N (default 2) H200-like GPUs with\n"
		"                       synthetic timings, for tests and dry runs\n"
		"  --fake-delay S       seconds each fake measurement takes\n\n"
		"Exit status: 0 done; 1 an error, a hang, a failed canary or wrong results;\n"
		"2 bad options; 3 with --strict, a SLOW verdict.\n"
		"Read the results with 'podplan calib show RUN' and 'podplan calib export RUN --csv'.\n",
		pp_store_default_path(), d->min_bytes, d->max_bytes, d->step_factor, d->coll_it.repeats,
		d->coll_it.warmup, d->coll_it.timeout_s, (long long)d->square_min,
		(long long)d->square_max);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "podplan-calibrate: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'podplan-calibrate --help'.\n");
	return 2;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* Parse a comma-separated list of names into flags. */
static int parse_names(const char *list, const char *const *names, size_t n, bool *flags,
		       const char *opt)
{
	char buf[512], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", list);
	for (size_t i = 0; i < n; i++)
		flags[i] = false;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i;
		for (i = 0; i < n && strcmp(t, names[i]); i++)
			;
		if (i == n) {
			const char *dym = pp_did_you_mean(t, names, n);
			fprintf(stderr, "podplan-calibrate: %s: unknown name '%s'%s%s%s\n", opt, t,
				dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
			return 2;
		}
		flags[i] = true;
	}
	return 0;
}

static int parse_ints(const char *list, int *out, int max, int *n, const char *opt)
{
	char buf[256], *save = NULL;
	long v;
	snprintf(buf, sizeof(buf), "%s", list);
	*n = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*n == max || parse_int(t, 1, 4096, &v))
			return usage_error("%s: expected a comma-separated list of positive numbers",
					   opt);
		out[(*n)++] = (int)v;
	}
	return 0;
}

enum {
	O_DB = 256, O_QUICK, O_ONLY, O_SKIP, O_GROUPS, O_TIMEOUT, O_GEMM_DT, O_SQ_MIN, O_SQ_MAX,
	O_MODELS, O_TP, O_NO_BWD, O_ALL_GPUS, O_MEM_MAX, O_ST_PATH, O_ST_BYTES, O_ST_EXPECT, O_GPUS,
	O_SKU, O_LABEL, O_PROGRESS, O_NO_PROGRESS, O_STRICT, O_FAKE, O_FAKE_DELAY, O_VERSION
};

static int parse(int argc, char **argv, cli *c)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, O_DB},
		{"quick", no_argument, NULL, O_QUICK},
		{"only", required_argument, NULL, O_ONLY},
		{"skip", required_argument, NULL, O_SKIP},
		{"minbytes", required_argument, NULL, 'b'},
		{"maxbytes", required_argument, NULL, 'e'},
		{"stepfactor", required_argument, NULL, 'f'},
		{"stepbytes", required_argument, NULL, 'i'},
		{"ops", required_argument, NULL, 'o'},
		{"datatype", required_argument, NULL, 'd'},
		{"groups", required_argument, NULL, O_GROUPS},
		{"iters", required_argument, NULL, 'n'},
		{"warmup", required_argument, NULL, 'w'},
		{"check", required_argument, NULL, 'c'},
		{"timeout", required_argument, NULL, O_TIMEOUT},
		{"gemm-dtypes", required_argument, NULL, O_GEMM_DT},
		{"square-min", required_argument, NULL, O_SQ_MIN},
		{"square-max", required_argument, NULL, O_SQ_MAX},
		{"models", required_argument, NULL, O_MODELS},
		{"tp", required_argument, NULL, O_TP},
		{"no-bwd", no_argument, NULL, O_NO_BWD},
		{"shapes-all-gpus", no_argument, NULL, O_ALL_GPUS},
		{"mem-max", required_argument, NULL, O_MEM_MAX},
		{"storage-path", required_argument, NULL, O_ST_PATH},
		{"storage-bytes", required_argument, NULL, O_ST_BYTES},
		{"storage-expect", required_argument, NULL, O_ST_EXPECT},
		{"gpus", required_argument, NULL, O_GPUS},
		{"gpu-sku", required_argument, NULL, O_SKU},
		{"label", required_argument, NULL, O_LABEL},
		{"progress", no_argument, NULL, O_PROGRESS},
		{"no-progress", no_argument, NULL, O_NO_PROGRESS},
		{"strict", no_argument, NULL, O_STRICT},
		{"fake", optional_argument, NULL, O_FAKE},
		{"fake-delay", required_argument, NULL, O_FAKE_DELAY},
		{"version", no_argument, NULL, O_VERSION},
		{"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0}};
	static const char *const what[] = {"collective", "gemm", "memory", "storage"};
	bool quick = false, only_set = false, only[4] = {true, true, true, true}, skip[4] = {false};
	long v;
	pp_err err = {0};
	int ch;
	/* --quick changes the defaults every other option starts from */
	for (int i = 1; i < argc; i++)
		quick |= !strcmp(argv[i], "--quick");
	memset(c, 0, sizeof(*c));
	pp_cal_opts_defaults(&c->o, quick);
	c->progress = -1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "b:e:f:i:o:d:n:w:c:h", opts, NULL)) != -1) {
		switch (ch) {
		case O_DB: c->db = optarg; break;
		case O_QUICK: break;
		case O_ONLY:
			only_set = true;
			if (parse_names(optarg, what, 4, only, "--only"))
				return 2;
			break;
		case O_SKIP:
			if (parse_names(optarg, what, 4, skip, "--skip"))
				return 2;
			break;
		case 'b':
		case 'e':
		case 'i': {
			size_t s;
			if (pp_cal_parse_size(optarg, &s, &err))
				return usage_error("%s", err.msg);
			*(ch == 'b' ? &c->o.min_bytes : ch == 'e' ? &c->o.max_bytes : &c->o.step_bytes) = s;
			if (ch == 'i')
				c->o.step_factor = 1;
			break;
		}
		case 'f':
			if (parse_int(optarg, 1, 1024, &v))
				return usage_error("-f: found '%s', expected a factor from 1 to 1024", optarg);
			c->o.step_factor = (int)v;
			break;
		case 'o':
			if (parse_names(optarg, pp_coll_names, PP_COLL_COUNT, c->o.ops, "--ops"))
				return 2;
			break;
		case 'd': {
			bool f[PP_CDT_COUNT];
			if (parse_names(optarg, pp_cdtype_names, PP_CDT_COUNT, f, "--datatype"))
				return 2;
			for (int t = 0; t < PP_CDT_COUNT; t++)
				if (f[t])
					c->o.coll_dtype = (pp_cdtype)t;
			break;
		}
		case O_GROUPS:
			if (parse_ints(optarg, c->o.groups, PP_CAL_MAX_GROUPS, &c->o.ngroups, "--groups"))
				return 2;
			break;
		case 'n':
			if (parse_int(optarg, 1, 64, &v))
				return usage_error("-n: found '%s', expected 1 to 64 repeats", optarg);
			c->o.coll_it.repeats = c->o.gemm_it.repeats = c->o.mem_it.repeats = (int)v;
			if (v < c->o.coll_it.min_repeats)
				c->o.coll_it.min_repeats = c->o.gemm_it.min_repeats = c->o.mem_it.min_repeats = (int)v;
			break;
		case 'w':
			if (parse_int(optarg, 0, 1000, &v))
				return usage_error("-w: found '%s', expected 0 to 1000", optarg);
			c->o.coll_it.warmup = c->o.gemm_it.warmup = c->o.mem_it.warmup = (int)v;
			break;
		case 'c':
			if (parse_int(optarg, 0, 1, &v))
				return usage_error("-c: found '%s', expected 0 or 1", optarg);
			c->o.coll_it.check = c->o.gemm_it.check = v;
			break;
		case O_TIMEOUT:
			if (parse_int(optarg, 1, 86400, &v))
				return usage_error("--timeout: found '%s', expected seconds", optarg);
			c->o.coll_it.timeout_s = c->o.gemm_it.timeout_s = c->o.mem_it.timeout_s = (double)v;
			break;
		case O_GEMM_DT:
			if (parse_names(optarg, pp_dtype_names, PP_DT_COUNT, c->o.gemm_dtypes, "--gemm-dtypes"))
				return 2;
			if (c->o.gemm_dtypes[PP_DT_FP32])
				return usage_error("--gemm-dtypes: %s is not measured (use tf32)", "fp32");
			break;
		case O_SQ_MIN:
		case O_SQ_MAX:
			if (parse_int(optarg, 16, 65536, &v) || (v & (v - 1)))
				return usage_error("--square-min/max: found '%s', expected a power of 2 "
						   "from 16 to 65536", optarg);
			*(ch == O_SQ_MIN ? &c->o.square_min : &c->o.square_max) = v;
			break;
		case O_MODELS: c->o.models = optarg; break;
		case O_TP:
			if (parse_ints(optarg, c->o.tps, PP_CAL_MAX_TP, &c->o.ntps, "--tp"))
				return 2;
			break;
		case O_NO_BWD: c->o.shapes_bwd = false; break;
		case O_ALL_GPUS: c->o.shapes_all_gpus = true; break;
		case O_MEM_MAX:
			if (pp_cal_parse_size(optarg, &c->o.mem_max, &err))
				return usage_error("--mem-max: %s", err.msg);
			break;
		case O_ST_PATH: c->o.storage_dir = optarg; break;
		case O_ST_BYTES:
			if (pp_cal_parse_size(optarg, &c->o.storage_bytes, &err))
				return usage_error("--storage-bytes: %s", err.msg);
			break;
		case O_ST_EXPECT: c->storage_expect = optarg; break;
		case O_GPUS:
			if (parse_int(optarg, 1, PP_CAL_MAX_GPUS, &v))
				return usage_error("--gpus: found '%s', expected 1 to 64", optarg);
			c->ngpus = (int)v;
			break;
		case O_SKU: c->gpu_sku = optarg; break;
		case O_LABEL: c->label = optarg; break;
		case O_PROGRESS: c->progress = 1; break;
		case O_NO_PROGRESS: c->progress = 0; break;
		case O_STRICT: c->strict = true; break;
		case O_FAKE:
			c->fake_gpus = 2;
			if (optarg && parse_int(optarg, 1, PP_CAL_MAX_GPUS, &v))
				return usage_error("--fake=N: found '%s', expected 1 to 64 GPUs", optarg);
			if (optarg)
				c->fake_gpus = (int)v;
			break;
		case O_FAKE_DELAY: {
			char *end;
			c->fake_delay_s = strtod(optarg, &end);
			if (end == optarg || *end || c->fake_delay_s < 0 || c->fake_delay_s > 60)
				return usage_error("--fake-delay: found '%s', expected seconds", optarg);
			break;
		}
		case O_VERSION: printf("podplan-calibrate %s\n", PP_VERSION); return -1;
		case 'h': help(&c->o); return -1;
		default: return usage_error("%s", "unknown option");
		}
	}
	if (optind < argc && !strcmp(argv[optind], "sweep"))
		optind++;
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (c->o.min_bytes > c->o.max_bytes)
		return usage_error("%s", "-b is larger than -e");
	if (c->o.square_min > c->o.square_max)
		return usage_error("%s", "--square-min is larger than --square-max");
	bool on[4];
	for (int i = 0; i < 4; i++)
		on[i] = only[i] && !skip[i];
	c->o.do_coll = on[0];
	c->o.do_gemm = on[1];
	c->o.do_mem = on[2];
	if (!on[3])
		c->o.storage_dir = NULL;
	else if (only_set && only[3] && !c->o.storage_dir)
		return usage_error("%s", "--only storage needs --storage-path DIR");
	return 0;
}

static char *join_argv(int argc, char **argv)
{
	pp_sb sb = {0};
	for (int i = 0; i < argc; i++) {
		if (i)
			pp_sb_adds(&sb, " ");
		if (strpbrk(argv[i], " \t\"'"))
			pp_sb_add_json(&sb, argv[i]);
		else
			pp_sb_adds(&sb, argv[i]);
	}
	return pp_sb_detach(&sb);
}

static char *run_extra(const cli *c, const pp_cal_backend *b, bool fake)
{
	pp_sb sb = {0};
	const pp_cal_opts *o = &c->o;
	char host[256] = "";
	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	pp_sb_addf(&sb, "{\"pid\": %ld, \"writer_host\": ", (long)getpid());
	pp_sb_add_json(&sb, host);
	pp_sb_addf(&sb, ", \"backend\": \"%s\", \"mode\": \"%s\", \"nprocs\": %d", b->ops->name,
		   fake ? "fake" : b->nprocs > 1 ? "mpi" : "single-process", b->nprocs);
	pp_sb_addf(&sb, ", \"sweep\": {\"quick\": %s, \"minbytes\": %zu, \"maxbytes\": %zu, "
		   "\"stepfactor\": %d, \"stepbytes\": %zu, \"datatype\": \"%s\", \"repeats\": %d, "
		   "\"warmup\": %d, \"check\": %s, \"square_max\": %lld, \"models\": ",
		   o->quick ? "true" : "false", o->min_bytes, o->max_bytes, o->step_factor,
		   o->step_bytes, pp_cdtype_names[o->coll_dtype], o->coll_it.repeats, o->coll_it.warmup,
		   o->coll_it.check ? "true" : "false", (long long)o->square_max);
	pp_sb_add_json(&sb, o->models);
	pp_sb_adds(&sb, "}, \"nccl_env\": {");
	bool first = true;
	for (char **e = environ; *e; e++) {
		if (strncmp(*e, "NCCL_", 5) && strncmp(*e, "CUDA_VISIBLE", 12))
			continue;
		const char *eq = strchr(*e, '=');
		if (!eq)
			continue;
		char key[128];
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *e), *e);
		pp_sb_adds(&sb, first ? "" : ", ");
		pp_sb_add_json(&sb, key);
		pp_sb_adds(&sb, ": ");
		pp_sb_add_json(&sb, eq + 1);
		first = false;
	}
	pp_sb_adds(&sb, "}");
	if (c->label) {
		pp_sb_adds(&sb, ", \"label\": ");
		pp_sb_add_json(&sb, c->label);
	}
	pp_sb_adds(&sb, "}");
	return pp_sb_detach(&sb);
}

static int fail(const pp_cal_backend *b, const pp_err *err)
{
	if (b && b->nprocs > 1)
		fprintf(stderr, "podplan-calibrate: rank %d: %s\n", b->rank,
			err->msg[0] ? err->msg : "unknown error");
	else
		fprintf(stderr, "podplan-calibrate: %s\n", err->msg[0] ? err->msg : "unknown error");
	return pp_exit_status(err->code ? err->code : PP_EINTERNAL);
}

/* The machine as a stored run describes it: GPU name and count, and from
 * topology_json the link matrix, active NVLinks and hosts. *known is false
 * when the run has no link matrix (an imported nccl-tests log). */
static void host_from_run(const pp_calib_run *r, pp_cal_host *h, bool *known)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->gpu_name, sizeof(h->gpu_name), "%s", r->gpu_name ? r->gpu_name : "?");
	snprintf(h->host, sizeof(h->host), "%s", r->host ? r->host : "?");
	h->ngpus = r->gpu_count != PP_CALIB_NULL ? (int)r->gpu_count : 0;
	h->nhosts = 1;
	for (const char *p = r->host; p && *p; p++)
		h->nhosts += *p == ',';
	*known = false;
	cJSON *j = r->topology_json ? cJSON_Parse(r->topology_json) : NULL;
	const cJSON *links = j ? cJSON_GetObjectItemCaseSensitive(j, "links") : NULL;
	const cJSON *gpus = j ? cJSON_GetObjectItemCaseSensitive(j, "gpus") : NULL;
	if (cJSON_IsArray(links) && cJSON_GetArraySize(links) > 1) {
		*known = true;
		h->nvlink_all_pairs = true;
		int a = 0;
		for (const cJSON *row = links->child; row; row = row->next, a++) {
			int b = 0;
			for (const cJSON *c = row->child; c; c = c->next, b++) {
				const char *v = cJSON_IsString(c) ? c->valuestring : "";
				if (a != b && strncmp(v, "NV", 2))
					h->nvlink_all_pairs = false;
				if (!strcmp(v, "NET"))
					h->nhosts = 2;
			}
		}
	}
	int i = 0;
	for (const cJSON *g = cJSON_IsArray(gpus) ? gpus->child : NULL; g && i < PP_CAL_MAX_GPUS;
	     g = g->next, i++) {
		const cJSON *nv = cJSON_GetObjectItemCaseSensitive(g, "nvlinks");
		h->nvlinks_active[i] = cJSON_IsNumber(nv) ? (int)nv->valuedouble : -1;
	}
	cJSON_Delete(j);
}

/* podplan-calibrate verdict RUN: judge a stored run again (new catalogs or
 * thresholds, another --storage-expect, an imported nccl-tests log) without
 * a GPU, print the table and store it with the run. */
static int cmd_verdict(int argc, char **argv)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, O_DB},
		{"gpu-sku", required_argument, NULL, O_SKU},
		{"storage-expect", required_argument, NULL, O_ST_EXPECT},
		{"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0}};
	const char *db = NULL;
	pp_cal_health_opts ho = {0};
	pp_err err = {0};
	int ch, rc = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case O_DB: db = optarg; break;
		case O_SKU: ho.gpu_sku = optarg; break;
		case O_ST_EXPECT: ho.storage_id = optarg; break;
		case 'h':
			printf("usage: podplan-calibrate verdict RUN [--db DB] [--gpu-sku ID] "
			       "[--storage-expect ID]\n\n"
			       "Judges a stored run again against the current catalogs and\n"
			       "models/health.json (no GPU needed), prints the OK/SLOW table and stores\n"
			       "it with the run. Works for imported nccl-tests logs too (their links are\n"
			       "not recorded: the SKU's NVLink is assumed, shown as 'NVLink?').\n");
			return 0;
		default: return usage_error("%s", "verdict: unknown option");
		}
	}
	if (optind + 1 != argc)
		return usage_error("%s", "verdict takes one RUN id");
	char *end;
	long long id = strtoll(argv[optind], &end, 10);
	if (end == argv[optind] || *end || id <= 0)
		return usage_error("verdict: RUN must be a run id, found '%s'", argv[optind]);
	pp_store *st = NULL;
	pp_catalog *cat = NULL;
	pp_calib_run r;
	pp_calib_meas *rows = NULL;
	size_t n = 0;
	pp_cal_host h;
	pp_sb v = {0}, t = {0};
	bool known;
	int slow = 0;
	pp_calib_run_init(&r);
	if ((rc = pp_catalog_load(&cat, NULL, &err)) || (rc = pp_store_open(&st, db, &err)) ||
	    (rc = pp_calibdb_get_run(st, id, &r, &err)) ||
	    (rc = pp_calibdb_query(st, id, NULL, &rows, &n, &err)))
		goto out;
	host_from_run(&r, &h, &known);
	ho.links_unknown = !known;
	if ((rc = pp_cal_health(cat, &h, &ho, rows, n, &v, &slow, &err)) ||
	    (rc = pp_calibdb_set_verdict(st, id, v.buf, &err)) ||
	    (rc = pp_calibdb_format_verdict(v.buf, &t, &err)))
		goto out;
	printf("# health verdict of run %lld (%s x %d%s; thresholds in models/health.json)\n%s", id,
	       h.gpu_name, h.ngpus, known ? "" : "; links not recorded", t.buf);
out:
	if (rc)
		fprintf(stderr, "podplan-calibrate: %s\n", err.msg);
	pp_sb_release(&v);
	pp_sb_release(&t);
	pp_calib_meas_free(rows, n);
	pp_calib_run_release(&r);
	pp_store_close(st);
	pp_catalog_free(cat);
	return rc ? pp_exit_status(rc) : 0;
}

int main(int argc, char **argv)
{
	cli c;
	pp_err err = {0};
	pp_cal_backend *b = NULL;
	pp_catalog *cat = NULL;
	pp_store *st = NULL;
	pp_cal_host host;
	pp_cal_item *items = NULL;
	size_t nitems = 0;
	int64_t run = 0;
	int rc, status = 0;
	char *cmdline = join_argv(argc, argv), *extra = NULL;
	bool run_open = false;
	memset(&host, 0, sizeof(host));
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "overlap")) {
		free(cmdline);
		return pp_cal_overlap_main(argc - 1, argv + 1);
	}
	if (argc > 1 && !strcmp(argv[1], "replay")) {
		free(cmdline);
		return pp_cal_replay_main(argc - 1, argv + 1);
	}
	if (argc > 1 && !strcmp(argv[1], "verdict")) {
		free(cmdline);
		return cmd_verdict(argc - 1, argv + 1);
	}
	if ((rc = parse(argc, argv, &c))) {
		free(cmdline);
		return rc < 0 ? 0 : rc;
	}
	if (c.fake_gpus) {
		rc = pp_cal_fake_new(c.fake_gpus, c.fake_delay_s, &b, &err);
	} else {
		if (pp_mpi_launched() && !pp_mpi_available()) {
			pp_errf(&err, PP_EINPUT, "started by mpirun, but this podplan-calibrate was built "
				"without MPI: run it once without mpirun (it drives every GPU itself)");
			rc = PP_EINPUT;
		} else {
			pp_cal_gpu_opts go = {.ngpus = c.ngpus, .mpi = pp_mpi_launched()};
			if (go.mpi && c.ngpus)
				fprintf(stderr, "podplan-calibrate: --gpus is ignored under mpirun (one "
					"rank per GPU)\n");
			rc = pp_cal_gpu_new(&go, &argc, &argv, &b, &err);
		}
	}
	if (rc) {
		status = fail(b, &err);
		goto out;
	}
	if ((rc = pp_catalog_load(&cat, NULL, &err)) ||
	    (rc = pp_cal_plan(&c.o, cat, b->ngpus, &items, &nitems, &err)) ||
	    (rc = b->ops->describe(b, &host, &err)))
		goto fatal;
	double est = 0;
	char estb[32];
	for (size_t i = 0; i < nitems; i++)
		est += items[i].est_s;
	if (b->root) {
		pp_calib_run r;
		pp_calib_run_init(&r);
		extra = run_extra(&c, b, c.fake_gpus > 0);
		r.source = c.fake_gpus ? "fake" : "podplan-calibrate";
		r.command_line = cmdline;
		r.host = host.host;
		r.gpu_name = host.gpu_name;
		r.gpu_count = host.ngpus;
		r.driver_version = host.driver;
		r.cuda_version = host.cuda;
		r.nccl_version = host.nccl;
		r.cpu_cores = host.cpu_cores;
		r.mem_bytes = host.mem_bytes;
		r.topology_json = host.topology_json;
		r.extra_json = extra;
		if ((rc = pp_store_open(&st, c.db, &err)) || (rc = pp_calibdb_begin_run(st, &r, &run, &err)))
			goto fatal;
		run_open = true;
		printf("# podplan-calibrate %s: run %lld in %s\n# %d x %s on %s (%d host%s), driver %s, "
		       "CUDA %s, NCCL %s; %s mode; %zu measurements planned (about %s)\n", PP_VERSION,
		       (long long)run, pp_store_path(st), host.ngpus, host.gpu_name, host.host,
		       host.nhosts, host.nhosts == 1 ? "" : "s", host.driver, host.cuda, host.nccl,
		       c.fake_gpus ? "fake" : b->nprocs > 1 ? "MPI (one rank per GPU)" : "single-process",
		       nitems, pp_fmt_duration(est, estb, sizeof(estb)));
	}
	pp_cal_plan_max mx;
	pp_cal_plan_maxima(items, nitems, &mx);
	if ((rc = b->ops->prepare(b, mx.coll_send, mx.coll_recv, mx.gemm_a, mx.gemm_b, mx.gemm_d,
				  mx.mem, &err)))
		goto fatal;
	pp_cal_sweep sw = {.st = st, .run_id = run, .be = b, .opts = &c.o, .host = &host,
			   .out = b->root ? stdout : NULL,
			   .progress = b->root && (c.progress == 1 || (c.progress < 0 && isatty(2)))};
	if ((rc = pp_cal_sweep_run(&sw, items, nitems, &err)))
		goto fatal;
	if (b->root) {
		pp_calib_meas *rows = NULL;
		size_t nrows = 0;
		pp_sb verdict = {0}, table = {0};
		pp_cal_health_opts ho = {.gpu_sku = c.gpu_sku, .storage_id = c.storage_expect};
		int slow = 0;
		char el[32];
		if ((rc = pp_calibdb_query(st, run, NULL, &rows, &nrows, &err)) ||
		    (rc = pp_cal_health(cat, &host, &ho, rows, nrows, &verdict, &slow, &err)) ||
		    (rc = pp_calibdb_end_run(st, run, "complete", verdict.buf, &err)) ||
		    (rc = pp_calibdb_format_verdict(verdict.buf, &table, &err))) {
			pp_calib_meas_free(rows, nrows);
			pp_sb_release(&verdict);
			pp_sb_release(&table);
			goto fatal;
		}
		run_open = false;
		printf("\n# health verdict (%s x %d; thresholds in models/health.json)\n%s",
		       host.gpu_name, host.ngpus, table.buf);
		printf("\n# run %lld complete: %zu rows in %s (%zu skipped); 'podplan calib show %lld', "
		       "'podplan calib export %lld --csv'\n", (long long)run, sw.recorded,
		       pp_fmt_duration(sw.elapsed_s, el, sizeof(el)), sw.skipped, (long long)run,
		       (long long)run);
		if (sw.wrong) {
			fprintf(stderr, "podplan-calibrate: %lld result elements were wrong (see the "
				"#wrong columns)\n", (long long)sw.wrong);
			status = 1;
		} else if (c.strict && slow) {
			status = 3;
		}
		pp_calib_meas_free(rows, nrows);
		pp_sb_release(&verdict);
		pp_sb_release(&table);
	}
	goto out;
fatal:
	status = fail(b, &err);
	if (run_open) {
		pp_err e2 = {0};
		pp_calibdb_end_run(st, run, "failed", NULL, &e2);
		fprintf(stderr, "podplan-calibrate: run %lld marked failed; its %s measurements are kept\n",
			(long long)run, "completed");
	}
	if (b && b->ops->abort_all && b->nprocs > 1)
		b->ops->abort_all(b, status);
out:
	if (b)
		b->ops->close(b);
	pp_store_close(st);
	pp_catalog_free(cat);
	free(items);
	free(host.topology_json);
	free(extra);
	free(cmdline);
	return status;
}
