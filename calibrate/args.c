/* args.c - see args.h. */
#include "args.h"
#include "core/store.h"
#include "core/util.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const part_names[PP_CAL_NPARTS] = {"collective", "gemm", "memory", "storage",
							  "decode", "sustained"};

/* What an option's argument is, and so the type of the field it goes to. */
typedef enum arg_kind {
	ARG_NONE,     /* no argument; only `then` acts */
	ARG_TRUE,     /* no argument; bool := true */
	ARG_FALSE,    /* no argument; bool := false */
	ARG_STR,      /* const char *: the argument as given */
	ARG_INT,      /* int, in [lo, hi] */
	ARG_POW2,     /* int64_t, a power of 2 in [lo, hi] */
	ARG_REAL,     /* double, in [lo, hi] */
	ARG_SIZE,     /* size_t, nccl-tests' syntax (pp_cal_parse_size) */
	ARG_INTS,     /* int[max] and its int count: a comma-separated list, each in [lo, hi] */
	ARG_NAMES,    /* bool[nnames]: a comma-separated list of names[] (true = named) */
	ARG_HELP,     /* print --help and stop */
	ARG_VERSION   /* print the version and stop */
} arg_kind;

#define MAX_NAMES 8
#define MAX_INTS 16

/* One parsed argument, as `then` sees it. */
typedef struct arg_val {
	long i;                  /* ARG_INT, ARG_POW2 */
	double r;                /* ARG_REAL */
	size_t z;                /* ARG_SIZE */
	const char *s;           /* ARG_STR */
	bool names[MAX_NAMES];   /* ARG_NAMES */
	int ints[MAX_INTS], nints;
} arg_val;

typedef struct optdef {
	const char *name;        /* the long name; NULL: a heading of --help (in `help`) */
	int key;                 /* the short letter, or an O_ code above 255 */
	arg_kind kind;
	size_t at;               /* where the value goes: offsetof(pp_cal_args, field) ... */
	int (*then)(pp_cal_args *a, const arg_val *v); /* ... or what it does, when this is set:
						   * returns 0 or an exit status */
	double lo, hi;           /* the range of a number (of each, in a list) */
	size_t count;            /* ARG_INTS: offsetof the count */
	int max;                 /* ARG_INTS: entries at most */
	const char *const *names; /* ARG_NAMES: the known names */
	size_t nnames;
	const char *absent;      /* an optional argument: the text taken when it is left out */
	const char *bad;         /* a bad value's message, a format of one %s: the argument
				  * (ARG_SIZE: what the size parser says) */
	const char *usage;       /* the help line's left column; NULL: not listed */
	const char *help;        /* its text, a format of one %s: default_of() */
} optdef;

enum {
	O_DB = 256, O_QUICK, O_ONLY, O_SKIP, O_GROUPS, O_TIMEOUT, O_GEMM_DT, O_SQ_MIN, O_SQ_MAX,
	O_MODELS, O_TOKENS, O_TP, O_NO_BWD, O_TORCH_LAY, O_GEMM_GAP, O_ALL_GPUS, O_MEM_MAX, O_ST_PATH, O_ST_BYTES, O_ST_EXPECT, O_GPUS,
	O_SKU, O_LABEL, O_PROGRESS, O_NO_PROGRESS, O_STRICT, O_FAKE, O_FAKE_DELAY, O_VERSION,
	O_DEC_MODELS, O_DEC_TP, O_DEC_MAX_M, O_DEC_DT, O_SUS_S, O_SUS_SIZE, O_SUS_DT, O_SAMPLE_MS
};

/* ---- what some options do besides setting one field ---- */

static int set_only(pp_cal_args *a, const arg_val *v)
{
	a->only_set = true;
	memcpy(a->only, v->names, sizeof(a->only));
	return 0;
}

/* -i adds instead of multiplying */
static int set_step_bytes(pp_cal_args *a, const arg_val *v)
{
	a->o.step_bytes = v->z;
	a->o.step_factor = 1;
	return 0;
}

/* the last of the names in pp_cdtype order */
static int set_datatype(pp_cal_args *a, const arg_val *v)
{
	for (int t = 0; t < PP_CDT_COUNT; t++)
		if (v->names[t])
			a->o.coll_dtype = (pp_cdtype)t;
	return 0;
}

/* -n, -w, -c and --timeout hold for collectives, GEMMs and copies alike */
static int set_repeats(pp_cal_args *a, const arg_val *v)
{
	pp_cal_opts *o = &a->o;
	o->coll_it.repeats = o->gemm_it.repeats = o->mem_it.repeats = (int)v->i;
	if (v->i < o->coll_it.min_repeats)
		o->coll_it.min_repeats = o->gemm_it.min_repeats = o->mem_it.min_repeats = (int)v->i;
	return 0;
}

static int set_warmup(pp_cal_args *a, const arg_val *v)
{
	a->o.coll_it.warmup = a->o.gemm_it.warmup = a->o.mem_it.warmup = (int)v->i;
	return 0;
}

static int set_check(pp_cal_args *a, const arg_val *v)
{
	a->o.coll_it.check = a->o.gemm_it.check = v->i;
	return 0;
}

static int set_timeout(pp_cal_args *a, const arg_val *v)
{
	a->o.coll_it.timeout_s = a->o.gemm_it.timeout_s = a->o.mem_it.timeout_s = (double)v->i;
	return 0;
}

static int set_gemm_dtypes(pp_cal_args *a, const arg_val *v)
{
	memcpy(a->o.gemm_dtypes, v->names, sizeof(a->o.gemm_dtypes));
	if (a->o.gemm_dtypes[PP_DT_FP32])
		return pp_cal_usage_error("--gemm-dtypes: %s is not measured (use tf32)", "fp32");
	return 0;
}

static int set_decode_dtypes(pp_cal_args *a, const arg_val *v)
{
	memcpy(a->o.decode_dtypes, v->names, sizeof(a->o.decode_dtypes));
	if (a->o.decode_dtypes[PP_DT_FP32])
		return pp_cal_usage_error("--decode-dtypes: %s is not measured (use tf32)", "fp32");
	return 0;
}

static int set_sustained_dtypes(pp_cal_args *a, const arg_val *v)
{
	memcpy(a->o.sustained_dtypes, v->names, sizeof(a->o.sustained_dtypes));
	if (a->o.sustained_dtypes[PP_DT_FP32])
		return pp_cal_usage_error("--sustained-dtypes: %s is not measured (use tf32)", "fp32");
	return 0;
}

static int set_sample_ms(pp_cal_args *a, const arg_val *v)
{
	a->o.sample_s = (double)v->i * 1e-3;
	return 0;
}

static int set_gemm_gap(pp_cal_args *a, const arg_val *v)
{
	a->o.gemm_it.gap_s = (double)v->i * 1e-3;
	return 0;
}

static int progress_on(pp_cal_args *a, const arg_val *v)
{
	(void)v;
	a->progress = 1;
	return 0;
}

static int progress_off(pp_cal_args *a, const arg_val *v)
{
	(void)v;
	a->progress = 0;
	return 0;
}

/* ---- the options ---- */

#define AT(field) offsetof(pp_cal_args, field)
#define HEADING(text) {NULL, 0, ARG_NONE, 0, .help = text}

/* In getopt_long's order (its ambiguity messages list them so) and in the
 * order --help shows them. */
static const optdef table[] = {
	{"db", O_DB, ARG_STR, AT(db), .usage = "--db DB",
	 .help = "the store (default $PODPLAN_DB, else %s)"},
	{"quick", O_QUICK, ARG_NONE, 0, .usage = "--quick", /* read before the rest */
	 .help = "a short pass: sizes x4 up to 1 GiB, fewer shapes (seconds on 2 GPUs)"},
	{"only", O_ONLY, ARG_NAMES, 0, .then = set_only, .names = part_names, .nnames = PP_CAL_NPARTS,
	 .usage = "--only LIST", .help = "collective,gemm,memory,storage (default: these four; storage\n"
					 "                       needs --storage-path), decode, sustained (measured\n"
					 "                       only when named here)"},
	{"skip", O_SKIP, ARG_NAMES, AT(skip), .names = part_names, .nnames = PP_CAL_NPARTS,
	 .usage = "--skip LIST", .help = "the same names, left out"},
	HEADING(" collectives (nccl-tests' options):"),
	{"minbytes", 'b', ARG_SIZE, AT(o.min_bytes), .bad = "%s", .usage = "-b, --minbytes SIZE",
	 .help = "smallest size (default %s; K, M, G = 1024^n)"},
	{"maxbytes", 'e', ARG_SIZE, AT(o.max_bytes), .bad = "%s", .usage = "-e, --maxbytes SIZE",
	 .help = "largest size (default %s = 8 GiB)"},
	{"stepfactor", 'f', ARG_INT, AT(o.step_factor), .lo = 1, .hi = 1024,
	 .bad = "-f: found '%s', expected a factor from 1 to 1024", .usage = "-f, --stepfactor N",
	 .help = "multiply the size by N (default %s)"},
	{"stepbytes", 'i', ARG_SIZE, 0, .then = set_step_bytes, .bad = "%s",
	 .usage = "-i, --stepbytes SIZE", .help = "add SIZE instead when -f is 1"},
	{"ops", 'o', ARG_NAMES, AT(o.ops), .names = pp_coll_names, .nnames = PP_COLL_COUNT,
	 .usage = "-o, --ops LIST",
	 .help = "all_reduce,all_gather,reduce_scatter,broadcast,alltoall,sendrecv"},
	{"datatype", 'd', ARG_NAMES, 0, .then = set_datatype, .names = pp_cdtype_names,
	 .nnames = PP_CDT_COUNT, .usage = "-d, --datatype T",
	 .help = "float (default), bfloat16 or half"},
	{"groups", O_GROUPS, ARG_INTS, AT(o.groups), .lo = 1, .hi = 4096, .count = AT(o.ngroups),
	 .max = PP_CAL_MAX_GROUPS,
	 .bad = "--groups: expected a comma-separated list of positive numbers", .usage = "--groups LIST",
	 .help = "GPU counts to measure (default 2, 4, 8 ... and all)"},
	{"iters", 'n', ARG_INT, 0, .then = set_repeats, .lo = 1, .hi = 64,
	 .bad = "-n: found '%s', expected 1 to 64 repeats", .usage = "-n, --iters N",
	 .help = "timed repeats per size (default %s; median, min, max over them)"},
	{"warmup", 'w', ARG_INT, 0, .then = set_warmup, .lo = 0, .hi = 1000,
	 .bad = "-w: found '%s', expected 0 to 1000", .usage = "-w, --warmup N",
	 .help = "warm-up iterations (default %s)"},
	{"check", 'c', ARG_INT, 0, .then = set_check, .lo = 0, .hi = 1,
	 .bad = "-c: found '%s', expected 0 or 1", .usage = "-c, --check 0|1",
	 .help = "check every result element (default 1)"},
	{"timeout", O_TIMEOUT, ARG_INT, 0, .then = set_timeout, .lo = 1, .hi = 86400,
	 .bad = "--timeout: found '%s', expected seconds", .usage = "--timeout S",
	 .help = "a wait longer than S seconds is a hang: stop (default %s)"},
	HEADING(" GEMMs:"),
	{"gemm-dtypes", O_GEMM_DT, ARG_NAMES, 0, .then = set_gemm_dtypes, .names = pp_dtype_names,
	 .nnames = PP_DT_COUNT, .usage = "--gemm-dtypes LIST",
	 .help = "bf16,fp16,fp8,tf32 (default all four)"},
	{"square-min", O_SQ_MIN, ARG_POW2, AT(o.square_min), .lo = 16, .hi = 65536,
	 .bad = "--square-min/max: found '%s', expected a power of 2 from 16 to 65536",
	 .usage = "--square-min N, --square-max N", .help = "square sizes, powers of 2 (default %s)"},
	{"square-max", O_SQ_MAX, ARG_POW2, AT(o.square_max), .lo = 16, .hi = 65536,
	 .bad = "--square-min/max: found '%s', expected a power of 2 from 16 to 65536"},
	{"models", O_MODELS, ARG_STR, AT(o.models), .usage = "--models LIST",
	 .help = "model presets for transformer shapes: all (default), none,\n"
		 "                       or ids from 'podplan catalog models'"},
	{"tokens", O_TOKENS, ARG_INT, AT(o.shape_tokens), .lo = 0, .hi = 1048576,
	 .bad = "--tokens: found '%s', expected 0 to 1048576 tokens", .usage = "--tokens T",
	 .help = "tokens per micro-batch (M) of the model shapes (default 0: one\n"
		 "                       sequence of the preset's seq_length)"},
	{"tp", O_TP, ARG_INTS, AT(o.tps), .lo = 1, .hi = 4096, .count = AT(o.ntps),
	 .max = PP_CAL_MAX_TP,
	 .bad = "--tp: expected a comma-separated list of positive numbers", .usage = "--tp LIST",
	 .help = "tensor-parallel degrees (default 1 and the GPU count)"},
	{"no-bwd", O_NO_BWD, ARG_FALSE, AT(o.shapes_bwd), .usage = "--no-bwd",
	 .help = "forward shapes only (default: also dgrad and wgrad)"},
	{"torch-layouts", O_TORCH_LAY, ARG_TRUE, AT(o.torch_layouts), .usage = "--torch-layouts",
	 .help = "model shapes in the layouts PyTorch's linear layers give cuBLAS:\n"
		 "                       forward TN, input gradient NN, weight gradient NT\n"
		 "                       (default: NN as listed)"},
	{"gemm-gap-ms", O_GEMM_GAP, ARG_INT, 0, .then = set_gemm_gap, .lo = 0, .hi = 10000,
	 .bad = "--gemm-gap-ms: found '%s', expected 0 to 10000 ms", .usage = "--gemm-gap-ms MS",
	 .help = "leave the GPU idle MS before each GEMM shape (clocks recovered\n"
		 "                       from the power limit: burst rates; default 0, back to back)"},
	{"shapes-all-gpus", O_ALL_GPUS, ARG_TRUE, AT(o.shapes_all_gpus), .usage = "--shapes-all-gpus",
	 .help = "model shapes on every GPU (default: GPU 0; squares always\n"
		 "                       run on every GPU, for the peer comparison)"},
	HEADING(" decode-shaped GEMMs (--only decode):"),
	{"decode-models", O_DEC_MODELS, ARG_STR, AT(o.decode_models), .usage = "--decode-models LIST",
	 .help = "presets whose linear layers are measured (default\n"
		 "                       llama3-8b,llama3-70b)"},
	{"decode-tp", O_DEC_TP, ARG_INTS, AT(o.decode_tps), .lo = 1, .hi = 4096,
	 .count = AT(o.ndecode_tps), .max = PP_CAL_MAX_TP,
	 .bad = "--decode-tp: expected a comma-separated list of positive numbers",
	 .usage = "--decode-tp LIST", .help = "TP shards of them (default 1,2,4,8, whatever the GPU count)"},
	{"decode-max-m", O_DEC_MAX_M, ARG_POW2, AT(o.decode_max_m), .lo = 1, .hi = 65536,
	 .bad = "--decode-max-m: found '%s', expected a power of 2 from 1 to 65536",
	 .usage = "--decode-max-m N", .help = "tokens M = 1, 2, 4 ... N (default %s)"},
	{"decode-dtypes", O_DEC_DT, ARG_NAMES, 0, .then = set_decode_dtypes, .names = pp_dtype_names,
	 .nnames = PP_DT_COUNT, .usage = "--decode-dtypes LIST", .help = "bf16,fp16,fp8,tf32 (default bf16)"},
	HEADING(" sustained GEMMs (--only sustained):"),
	{"sustained-s", O_SUS_S, ARG_REAL, AT(o.sustained_s), .lo = 1, .hi = 600,
	 .bad = "--sustained-s: found '%s', expected 1 to 600 seconds", .usage = "--sustained-s S",
	 .help = "seconds back to back per dtype (default %s)"},
	{"sustained-size", O_SUS_SIZE, ARG_POW2, AT(o.sustained_size), .lo = 256, .hi = 65536,
	 .bad = "--sustained-size: found '%s', expected a power of 2 from 256 to 65536",
	 .usage = "--sustained-size N", .help = "the square GEMM N x N x N (default %s)"},
	{"sustained-dtypes", O_SUS_DT, ARG_NAMES, 0, .then = set_sustained_dtypes,
	 .names = pp_dtype_names, .nnames = PP_DT_COUNT, .usage = "--sustained-dtypes LIST",
	 .help = "bf16,fp16,fp8,tf32 (default bf16,fp8)"},
	{"sample-ms", O_SAMPLE_MS, ARG_INT, 0, .then = set_sample_ms, .lo = 10, .hi = 10000,
	 .bad = "--sample-ms: found '%s', expected 10 to 10000 ms", .usage = "--sample-ms MS",
	 .help = "a sample (rate, NVML clocks, power, throttle reasons) every MS\n"
		 "                       (default %s)"},
	HEADING(" memory, storage:"),
	{"mem-max", O_MEM_MAX, ARG_SIZE, AT(o.mem_max), .bad = "--mem-max: %s",
	 .usage = "--mem-max SIZE", .help = "largest copy (default 4 GiB; host copies stop at 1 GiB)"},
	{"storage-path", O_ST_PATH, ARG_STR, AT(o.storage_dir), .usage = "--storage-path DIR",
	 .help = "measure sequential write and read of a checkpoint-sized file"},
	{"storage-bytes", O_ST_BYTES, ARG_SIZE, AT(o.storage_bytes), .bad = "--storage-bytes: %s",
	 .usage = "--storage-bytes SIZE", .help = "the file (default 4 GiB; --quick 512 MiB)"},
	{"storage-expect", O_ST_EXPECT, ARG_STR, AT(storage_expect), .usage = "--storage-expect ID",
	 .help = "the storage.json tier to judge against (default: health.json's)"},
	HEADING(" the run:"),
	{"gpus", O_GPUS, ARG_INT, AT(ngpus), .lo = 1, .hi = PP_CAL_MAX_GPUS,
	 .bad = "--gpus: found '%s', expected 1 to 64", .usage = "--gpus N",
	 .help = "single process: the first N GPUs (default all visible)"},
	{"gpu-sku", O_SKU, ARG_STR, AT(gpu_sku), .usage = "--gpu-sku ID",
	 .help = "the catalog GPU, when its name is not mapped in health.json"},
	{"label", O_LABEL, ARG_STR, AT(label), .usage = "--label TEXT",
	 .help = "a note stored with the run"},
	{"progress", O_PROGRESS, ARG_NONE, 0, .then = progress_on, .usage = "--progress, --no-progress",
	 .help = "the progress line (default: when stderr is a terminal)"},
	{"no-progress", O_NO_PROGRESS, ARG_NONE, 0, .then = progress_off},
	{"strict", O_STRICT, ARG_TRUE, AT(strict), .usage = "--strict",
	 .help = "exit 3 when the verdict has a SLOW row"},
	{"fake", O_FAKE, ARG_INT, AT(fake_gpus), .lo = 1, .hi = PP_CAL_MAX_GPUS, .absent = "2",
	 .bad = "--fake=N: found '%s', expected 1 to 64 GPUs", .usage = "--fake[=N]",
	 .help = "no GPU: a pretend pod of N (default 2) H200-like GPUs with\n"
		 "                       synthetic timings, for tests and dry runs"},
	{"fake-delay", O_FAKE_DELAY, ARG_REAL, AT(fake_delay_s), .lo = 0, .hi = 60,
	 .bad = "--fake-delay: found '%s', expected seconds", .usage = "--fake-delay S",
	 .help = "seconds each fake measurement takes"},
	{"version", O_VERSION, ARG_VERSION, 0, .usage = NULL},
	{"help", 'h', ARG_HELP, 0, .usage = NULL},
};

/* ---- --help ---- */

/* The default a help line shows: what the option starts from, after
 * --quick and the options given before --help. */
static const char *default_of(int key, const pp_cal_opts *o, char *b, size_t n)
{
	b[0] = '\0';
	switch (key) {
	case O_DB: return pp_store_default_path();
	case 'b': snprintf(b, n, "%zu", o->min_bytes); break;
	case 'e': snprintf(b, n, "%zu", o->max_bytes); break;
	case 'f': snprintf(b, n, "%d", o->step_factor); break;
	case 'n': snprintf(b, n, "%d", o->coll_it.repeats); break;
	case 'w': snprintf(b, n, "%d", o->coll_it.warmup); break;
	case O_TIMEOUT: snprintf(b, n, "%.0f", o->coll_it.timeout_s); break;
	case O_SQ_MIN:
		snprintf(b, n, "%lld..%lld", (long long)o->square_min, (long long)o->square_max);
		break;
	case O_DEC_MAX_M: snprintf(b, n, "%lld", (long long)o->decode_max_m); break;
	case O_SUS_S: snprintf(b, n, "%.0f", o->sustained_s); break;
	case O_SUS_SIZE: snprintf(b, n, "%lld", (long long)o->sustained_size); break;
	case O_SAMPLE_MS: snprintf(b, n, "%.0f", o->sample_s * 1e3); break;
	}
	return b;
}

static void help(const pp_cal_opts *o)
{
	printf("usage: podplan-calibrate [sweep] [options]\n"
	       "       mpirun -np N podplan-calibrate [options]   (one rank per GPU; multi-node)\n"
	       "       podplan-calibrate verdict RUN [--db DB]      (judge a stored run again)\n"
	       "       podplan-calibrate replay SCENARIO.json ...   (execute a simulated step; --help)\n"
	       "       podplan-calibrate overlap [--db DB]          (collectives beside compute; --help)\n\n"
	       "Measures this GPU pod and stores every figure, with its provenance, in the podplan\n"
	       "store: NCCL collectives (nccl-tests' sizes, algbw/busbw, in- and out-of-place,\n"
	       "every element checked), cuBLASLt GEMMs (bf16, fp16, fp8 e4m3, tf32; squares and the\n"
	       "model presets' shapes per tensor-parallel shard), device copies, pinned host copies,\n"
	       "storage, and the GPU link matrix; on request (--only decode,sustained) decode-shaped\n"
	       "GEMMs (M = 1..512 tokens) and GEMMs back to back for seconds with the clocks, power\n"
	       "and throttle reasons NVML reads. Each measurement is committed as it is taken: a\n"
	       "run killed half-way keeps everything measured before, and a rerun with the same\n"
	       "options on the same host resumes it: what it holds is not measured again (other\n"
	       "options, e.g. a --label, start a new run). Ends with a health verdict\n"
	       "(OK/SLOW against models/gpus.json, fabrics.json, kernels.json, storage.json with\n"
	       "the thresholds of models/health.json).\n\n");
	for (size_t i = 0; i < PP_ARRAY_LEN(table); i++) {
		const optdef *t = &table[i];
		char d[64];
		if (!t->name) {
			printf("%s\n", t->help);
			continue;
		}
		if (!t->usage)
			continue;
		printf(strlen(t->usage) <= 20 ? "  %-20s " : "  %s   ", t->usage);
		printf(t->help, default_of(t->key, o, d, sizeof(d)));
		printf("\n");
	}
	printf("\n"
	       "Exit status: 0 done; 1 an error, a hang, a failed canary or wrong results;\n"
	       "2 bad options; 3 with --strict, a SLOW verdict.\n"
	       "Read the results with 'podplan calib show RUN' and 'podplan calib export RUN --csv'.\n");
}

/* ---- values ---- */

int pp_cal_usage_error(const char *fmt, const char *arg)
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

/* A comma-separated list of names into flags (true = named); opt names
 * the option in the message. */
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

/* A comma-separated list of at most max numbers, each in [lo, hi]. */
static int parse_ints(const char *list, long lo, long hi, int max, int *out, int *n)
{
	char buf[256], *save = NULL;
	long v;
	snprintf(buf, sizeof(buf), "%s", list);
	*n = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*n == max || parse_int(t, lo, hi, &v))
			return -1;
		out[(*n)++] = (int)v;
	}
	return 0;
}

/* Check arg as t's kind says into v. Returns 0 or the exit status after
 * the message. */
static int parse_value(const optdef *t, const char *arg, arg_val *v)
{
	pp_err err = {0};
	char *end, label[64];
	switch (t->kind) {
	case ARG_STR: v->s = arg; break;
	case ARG_INT:
		if (parse_int(arg, (long)t->lo, (long)t->hi, &v->i))
			return pp_cal_usage_error(t->bad, arg);
		break;
	case ARG_POW2:
		if (parse_int(arg, (long)t->lo, (long)t->hi, &v->i) || (v->i & (v->i - 1)))
			return pp_cal_usage_error(t->bad, arg);
		break;
	case ARG_REAL:
		v->r = strtod(arg, &end);
		if (end == arg || *end || v->r < t->lo || v->r > t->hi)
			return pp_cal_usage_error(t->bad, arg);
		break;
	case ARG_SIZE:
		if (pp_cal_parse_size(arg, &v->z, &err))
			return pp_cal_usage_error(t->bad, err.msg);
		break;
	case ARG_INTS:
		if (parse_ints(arg, (long)t->lo, (long)t->hi, t->max, v->ints, &v->nints))
			return pp_cal_usage_error(t->bad, arg);
		break;
	case ARG_NAMES:
		snprintf(label, sizeof(label), "--%s", t->name);
		if (parse_names(arg, t->names, t->nnames, v->names, label))
			return 2;
		break;
	default: break;
	}
	return 0;
}

/* Put v where t says. */
static void store(const optdef *t, const arg_val *v, pp_cal_args *a)
{
	char *at = (char *)a + t->at;
	switch (t->kind) {
	case ARG_TRUE: *(bool *)at = true; break;
	case ARG_FALSE: *(bool *)at = false; break;
	case ARG_STR: *(const char **)at = v->s; break;
	case ARG_INT: *(int *)at = (int)v->i; break;
	case ARG_POW2: *(int64_t *)at = v->i; break;
	case ARG_REAL: *(double *)at = v->r; break;
	case ARG_SIZE: *(size_t *)at = v->z; break;
	case ARG_INTS:
		memcpy(at, v->ints, sizeof(int) * (size_t)v->nints);
		*(int *)((char *)a + t->count) = v->nints;
		break;
	case ARG_NAMES: memcpy(at, v->names, sizeof(bool) * t->nnames); break;
	default: break;
	}
}

/* One option met on the command line, with its argument (NULL: none).
 * Returns 0, -1 (help or version printed) or an exit status. */
static int take(const optdef *t, const char *arg, pp_cal_args *a)
{
	arg_val v;
	int rc;
	memset(&v, 0, sizeof(v));
	if (t->kind == ARG_HELP) {
		help(&a->o);
		return -1;
	}
	if (t->kind == ARG_VERSION) {
		printf("podplan-calibrate %s\n", PP_VERSION);
		return -1;
	}
	if ((rc = parse_value(t, arg ? arg : t->absent, &v)))
		return rc;
	if (t->then)
		return t->then(a, &v);
	if (t->kind != ARG_NONE)
		store(t, &v, a);
	return 0;
}

/* ---- the command line ---- */

/* getopt_long's option array (lo, 1 + the options) and short options. */
static void getopt_table(struct option *lo, char *so, size_t n)
{
	size_t k = 0, s = 0;
	for (size_t i = 0; i < PP_ARRAY_LEN(table); i++) {
		const optdef *t = &table[i];
		if (!t->name)
			continue;
		bool noarg = t->kind == ARG_NONE || t->kind == ARG_TRUE || t->kind == ARG_FALSE ||
			     t->kind == ARG_HELP || t->kind == ARG_VERSION;
		int has = noarg ? no_argument : t->absent ? optional_argument : required_argument;
		lo[k++] = (struct option){t->name, has, NULL, t->key};
		if (t->key < 256 && s + 3 < n) {
			so[s++] = (char)t->key;
			if (has == required_argument)
				so[s++] = ':';
		}
	}
	lo[k] = (struct option){0, 0, 0, 0};
	so[s] = '\0';
}

static const optdef *opt_of(int key)
{
	for (size_t i = 0; i < PP_ARRAY_LEN(table); i++)
		if (table[i].name && table[i].key == key)
			return &table[i];
	return NULL;
}

/* After the options: the one word allowed, and what options say together. */
static int finish(int argc, char **argv, pp_cal_args *a)
{
	if (optind < argc && !strcmp(argv[optind], "sweep"))
		optind++;
	if (optind < argc)
		return pp_cal_usage_error("unexpected argument '%s'", argv[optind]);
	if (a->o.min_bytes > a->o.max_bytes)
		return pp_cal_usage_error("%s", "-b is larger than -e");
	if (a->o.square_min > a->o.square_max)
		return pp_cal_usage_error("%s", "--square-min is larger than --square-max");
	bool on[PP_CAL_NPARTS];
	for (int i = 0; i < PP_CAL_NPARTS; i++)
		on[i] = a->only[i] && !a->skip[i];
	a->o.do_coll = on[0];
	a->o.do_gemm = on[1];
	a->o.do_mem = on[2];
	a->o.do_decode = on[4];
	a->o.do_sustained = on[5];
	if (a->o.sustained_s / a->o.sample_s > PP_CAL_MAX_SAMPLES)
		return pp_cal_usage_error("%s", "--sustained-s / --sample-ms gives more than 1200 samples; "
					  "sample less often");
	if (!on[3])
		a->o.storage_dir = NULL;
	else if (a->only_set && a->only[3] && !a->o.storage_dir)
		return pp_cal_usage_error("%s", "--only storage needs --storage-path DIR");
	return 0;
}

int pp_cal_args_parse(int argc, char **argv, pp_cal_args *a)
{
	_Static_assert(PP_COLL_COUNT <= MAX_NAMES && PP_DT_COUNT <= MAX_NAMES &&
			       PP_CDT_COUNT <= MAX_NAMES && PP_CAL_NPARTS <= MAX_NAMES,
		       "arg_val.names holds every name list");
	_Static_assert(PP_CAL_MAX_SAMPLES == 1200, "the --sustained-s message says 1200");
	_Static_assert(PP_CAL_MAX_GROUPS <= MAX_INTS && PP_CAL_MAX_TP <= MAX_INTS,
		       "arg_val.ints holds every number list");
	struct option lo[PP_ARRAY_LEN(table) + 1];
	char so[2 * PP_ARRAY_LEN(table) + 1];
	bool quick = false;
	int ch, rc;
	getopt_table(lo, so, sizeof(so));
	/* --quick changes the defaults every other option starts from */
	for (int i = 1; i < argc; i++)
		quick |= !strcmp(argv[i], "--quick");
	memset(a, 0, sizeof(*a));
	pp_cal_opts_defaults(&a->o, quick);
	a->progress = -1;
	for (int i = 0; i < PP_CAL_NPARTS; i++)
		a->only[i] = i < PP_CAL_DEFAULT_PARTS;
	optind = 1;
	while ((ch = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		const optdef *t = opt_of(ch);
		if (!t)
			return pp_cal_usage_error("%s", "unknown option");
		if ((rc = take(t, optarg, a)))
			return rc;
	}
	return finish(argc, argv, a);
}
