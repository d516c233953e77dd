/*
 * cmd_calib.c - podplan calib list | show RUN | verdict RUN | export [RUN] |
 * import-nccl-tests LOG...:
 * the calibration runs in the store (measured by podplan-calibrate or
 * imported from nccl-tests logs).
 */
#include "calib/calibdb.h"
#include "core/fmt.h"
#include "cli/cli.h"
#include "calib/ncclimport.h"
#include "calib/verdict.h"
#include "input/catalog.h"
#include "core/store.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void help(void)
{
	printf("usage: podplan calib list [--db DB]\n"
	       "       podplan calib show RUN [--db DB]\n"
	       "       podplan calib verdict RUN [--gpu-sku ID] [--storage-expect ID] [--json]\n"
	       "                                 [--save] [--db DB]\n"
	       "       podplan calib export [RUN] [--csv | --json] [-o FILE] [--db DB]\n"
	       "       podplan calib import-nccl-tests LOG... [--op NAME] [--scope S] [--nranks N]\n"
	       "                                              [--db DB]\n\n"
	       "Calibration runs hold what podplan-calibrate measured on a pod (or what\n"
	       "nccl-tests logs say), with provenance, so every simulator parameter can be\n"
	       "traced to a measurement.\n\n"
	       "  list               one line per run: id, date, source, status, GPUs, rows\n"
	       "                     (a run killed mid-sweep stays 'running', or shows\n"
	       "                     'interrupted' on the host that ran it; its rows are kept)\n"
	       "  show RUN           provenance, GPU link matrix, peak figures per collective,\n"
	       "                     GEMM dtype and copy kind, and the health verdict (the\n"
	       "                     stored one, else judged now as 'verdict' does)\n"
	       "  verdict RUN        judge the run's measurements against the catalogs and\n"
	       "                     models/health.json (CPU only, the computation\n"
	       "                     podplan-calibrate uses): each check OK, SLOW, n/a or\n"
	       "                     WRONG with measured, expected, ratio and the likely\n"
	       "                     cause or the basis; an imported nccl-tests log has no\n"
	       "                     link matrix, so the SKU's NVLink is assumed ('NVLink?');\n"
	       "                     exit status 1 when a check is WRONG (wrong results)\n"
	       "  --gpu-sku ID       judge as this catalog GPU (default: from the GPU name)\n"
	       "  --storage-expect ID  the storage.json tier storage rows are judged against\n"
	       "  --json             the verdict as JSON (format podplan-verdict/1)\n"
	       "  --save             store the verdict with the run (replacing the stored one)\n"
	       "  export [RUN]       the measurements (default: the newest run) as CSV with the\n"
	       "                     columns kind,op,dtype,nranks,bytes,inplace,m,n,k,time_us,\n"
	       "                     algbw_GBps,busbw_GBps,tflops,GBps first (time_us = median;\n"
	       "                     empty where a column does not apply), or --json\n"
	       "  -o, --output FILE  write the export to FILE (atomically) instead of stdout\n"
	       "  import-nccl-tests  read nccl-tests' standard output (any *_perf program, one\n"
	       "                     or several per file, single- or multi-node) into one run\n"
	       "                     per LOG; nranks comes from the '# Using devices' list;\n"
	       "                     rows with wrong elements (#wrong > 0) are stored with a\n"
	       "                     warning, and 'podplan fit' refuses their run\n"
	       "  --op NAME          the collective, when the log names none ('# Collective test\n"
	       "                     starting: X_perf') and its columns and busbw/algbw ratio\n"
	       "                     fit several (all_gather and alltoall print alike); the\n"
	       "                     file name is never read. A named collective whose rows'\n"
	       "                     busbw/algbw is not nccl-tests' factor for it (all_reduce\n"
	       "                     2(n-1)/n; all_gather, reduce_scatter, alltoall (n-1)/n;\n"
	       "                     broadcast, reduce, sendrecv 1) is an error (exit 2)\n"
	       "  --scope S          nvlink, pcie, net or local (default: net when the ranks\n"
	       "                     span several hosts, else unset)\n"
	       "  --nranks N         when the log has no device list\n"
	       "  -d, --db DB        the store (default " PP_STORE_DEFAULT_TEXT ")\n");
}

/* list, show and export only read: the store is opened read-only */
static int open_store(const char *db, bool writes, pp_store **st)
{
	pp_err err = {0};
	if ((writes ? pp_store_open : pp_store_open_ro)(st, db, &err))
		return pp_cli_fail(&err);
	return 0;
}

static const char *fmt_time(double t, char *buf, size_t n)
{
	return pp_fmt_utc(t, "%Y-%m-%d %H:%M:%S UTC", buf, n);
}

static int parse_run_id(const char *s, int64_t *id)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || v <= 0)
		return pp_cli_usage_error("calib", "RUN must be a run id (a positive number from "
					  "'podplan calib list'), found '%s'", s);
	*id = v;
	return 0;
}

static int cmd_list(pp_store *st)
{
	pp_calib_run *runs = NULL;
	size_t n = 0;
	pp_err err = {0};
	if (pp_calibdb_list_runs(st, &runs, &n, &err))
		return pp_cli_fail(&err);
	if (!n)
		printf("no calibration runs in %s (run podplan-calibrate, or 'podplan calib "
		       "import-nccl-tests LOG')\n", pp_store_path(st));
	else
		printf("%5s  %-23s  %-17s  %-11s  %5s  %-24s  %6s  %s\n", "run", "started", "source",
		       "status", "GPUs", "GPU", "rows", "host");
	for (size_t i = 0; i < n; i++) {
		const pp_calib_run *r = &runs[i];
		char t[48], g[24];
		if (r->gpu_count != PP_CALIB_NULL)
			snprintf(g, sizeof(g), "%lld", (long long)r->gpu_count);
		else
			snprintf(g, sizeof(g), "-");
		printf("%5lld  %-23s  %-17s  %-11s  %5s  %-24.24s  %6lld  %s\n", (long long)r->id,
		       fmt_time(r->started_at, t, sizeof(t)), pp_tty(r->source ? r->source : "-"),
		       pp_tty(pp_calibdb_effective_status(r)), g, pp_tty(r->gpu_name ? r->gpu_name : "-"),
		       (long long)r->n_measurements, pp_tty(r->host ? r->host : "-"));
		pp_calib_run_release(&runs[i]);
	}
	free(runs);
	return 0;
}

/* The GPU-to-GPU link matrix stored by podplan-calibrate, as nvidia-smi
 * topo -m prints it. */
static void print_links(const char *topology_json)
{
	cJSON *j = topology_json ? cJSON_Parse(topology_json) : NULL;
	const cJSON *links = j ? cJSON_GetObjectItemCaseSensitive(j, "links") : NULL;
	if (cJSON_IsArray(links) && cJSON_GetArraySize(links) > 0) {
		int n = cJSON_GetArraySize(links);
		printf("  links     ");
		for (int c = 0; c < n; c++)
			printf("%6s%d", "GPU", c);
		printf("\n");
		for (int r = 0; r < n; r++) {
			const cJSON *row = cJSON_GetArrayItem(links, r);
			printf("            GPU%-3d", r);
			for (int c = 0; c < n; c++) {
				const cJSON *v = cJSON_GetArrayItem(row, c);
				printf("%7s", cJSON_IsString(v) ? pp_tty(v->valuestring) : "?");
			}
			printf("\n");
		}
	}
	const cJSON *src = j ? cJSON_GetObjectItemCaseSensitive(j, "links_from") : NULL;
	if (cJSON_IsString(src))
		printf("            (from %s)\n", pp_tty(src->valuestring));
	const cJSON *nics = j ? cJSON_GetObjectItemCaseSensitive(j, "nics") : NULL;
	if (cJSON_IsArray(nics)) {
		printf("  NICs      ");
		if (!nics->child)
			printf("none found");
		for (const cJSON *c = nics->child; c; c = c->next) {
			const cJSON *nm = cJSON_GetObjectItemCaseSensitive(c, "name");
			const cJSON *rate = cJSON_GetObjectItemCaseSensitive(c, "rate");
			printf("%s%s%s%s ", cJSON_IsString(nm) ? pp_tty(nm->valuestring) : "?",
			       cJSON_IsString(rate) ? " (" : "",
			       cJSON_IsString(rate) ? pp_tty(rate->valuestring) : "",
			       cJSON_IsString(rate) ? ")" : "");
		}
		printf("\n");
	}
	cJSON_Delete(j);
}

typedef struct peak {
	char key[128];
	const pp_calib_meas *best;
	double value;
	size_t count;
} peak;

/* The best figure of each (kind, op, dtype, nranks[, device]) group:
 * busbw for collectives, TFLOP/s for GEMMs, GB/s for copies and storage. */
static void print_peaks(const pp_calib_meas *rows, size_t n)
{
	peak *pk = pp_xcalloc(n ? n : 1, sizeof(*pk));
	size_t np = 0;
	for (size_t i = 0; i < n; i++) {
		const pp_calib_meas *m = &rows[i];
		bool coll = !strcmp(m->kind, "collective"), gemm = !strcmp(m->kind, "gemm");
		double v = coll ? m->busbw_GBps : gemm ? m->tflops : m->GBps;
		if (!isfinite(v))
			continue;
		char key[128];
		snprintf(key, sizeof(key), "%s|%s|%s|%lld|%lld", m->kind,
			 gemm ? (strncmp(m->op ? m->op : "", "square", 6) ? "shapes" : "square")
			      : (m->op ? m->op : ""),
			 m->dtype ? m->dtype : "", (long long)(m->nranks == PP_CALIB_NULL ? 0 : m->nranks),
			 (long long)(coll || m->device == PP_CALIB_NULL ? -1 : m->device));
		size_t j;
		for (j = 0; j < np && strcmp(pk[j].key, key); j++)
			;
		if (j == np) {
			snprintf(pk[np].key, sizeof(pk[np].key), "%s", key);
			pk[np++].value = -1;
		}
		pk[j].count++;
		/* copies: the largest size (smaller device copies sit in L2);
		 * everything else: the best figure */
		bool copy = !strcmp(m->kind, "memcpy") || !strcmp(m->kind, "h2d") || !strcmp(m->kind, "d2h");
		if (copy ? !pk[j].best || m->bytes > pk[j].best->bytes ||
				   (m->bytes == pk[j].best->bytes && v > pk[j].value)
			 : v > pk[j].value) {
			pk[j].value = v;
			pk[j].best = m;
		}
	}
	if (np)
		printf("\npeaks (best of each group, copies at their largest size; 'podplan calib "
		       "export %lld' has every row)\n",
		       (long long)rows[0].run_id);
	for (size_t j = 0; j < np; j++) {
		const pp_calib_meas *m = pk[j].best;
		char b[32], what[96];
		pp_fmt_bytes(m->bytes == PP_CALIB_NULL ? 0 : (double)m->bytes, b, sizeof(b));
		if (!strcmp(m->kind, "collective")) {
			snprintf(what, sizeof(what), "%s %s, %lld ranks", pp_tty(m->op ? m->op : "?"),
				 pp_tty(m->dtype ? m->dtype : ""), (long long)m->nranks);
			printf("  %-12s %-36s busbw %8.1f GB/s  at %s%s (%zu rows)\n", pp_tty(m->kind), what,
			       pk[j].value, b, m->inplace == 1 ? " in-place" : "", pk[j].count);
		} else if (!strcmp(m->kind, "gemm")) {
			snprintf(what, sizeof(what), "%s %s, GPU %lld", pp_tty(m->dtype ? m->dtype : ""),
				 strncmp(m->op ? m->op : "", "square", 6) ? "model shapes" : "square",
				 (long long)m->device);
			printf("  %-12s %-36s %8.1f TFLOP/s at %lldx%lldx%lld %s (%zu rows)\n", pp_tty(m->kind),
			       what, pk[j].value, (long long)m->m, (long long)m->n, (long long)m->k,
			       pp_tty(m->op ? m->op : ""), pk[j].count);
		} else {
			snprintf(what, sizeof(what), "%s%s%s", pp_tty(m->op ? m->op : ""),
				 m->device != PP_CALIB_NULL ? ", GPU " : "", "");
			if (m->device != PP_CALIB_NULL)
				snprintf(what + strlen(what), sizeof(what) - strlen(what), "%lld",
					 (long long)m->device);
			printf("  %-12s %-36s %8.2f GB/s   at %s (%zu rows)\n", pp_tty(m->kind), what,
			       pk[j].value, b, pk[j].count);
		}
	}
	free(pk);
}

static int cmd_show(pp_store *st, int64_t id)
{
	pp_calib_run r;
	pp_calib_meas *rows = NULL;
	size_t n = 0;
	pp_err err = {0};
	int rc;
	if ((rc = pp_calibdb_get_run(st, id, &r, &err)))
		return pp_cli_fail(&err);
	if ((rc = pp_calibdb_query(st, id, NULL, &rows, &n, &err))) {
		pp_calib_run_release(&r);
		return pp_cli_fail(&err);
	}
	char t0[48], dur[32], mem[32];
	printf("calibration run %lld (%s, %s)\n", (long long)r.id, pp_tty(r.source),
	       pp_tty(pp_calibdb_effective_status(&r)));
	printf("  started   %s", fmt_time(r.started_at, t0, sizeof(t0)));
	if (isfinite(r.ended_at))
		printf(", took %s", pp_fmt_duration(r.ended_at - r.started_at, dur, sizeof(dur)));
	printf("\n  command   %s\n", pp_tty(r.command_line));
	printf("  host      %s", pp_tty(r.host ? r.host : "-"));
	if (r.cpu_cores != PP_CALIB_NULL)
		printf(", %lld CPU cores", (long long)r.cpu_cores);
	if (r.mem_bytes != PP_CALIB_NULL)
		printf(", %s memory", pp_fmt_bytes((double)r.mem_bytes, mem, sizeof(mem)));
	printf("\n  GPUs      ");
	if (r.gpu_count != PP_CALIB_NULL)
		printf("%lld x ", (long long)r.gpu_count);
	printf("%s", pp_tty(r.gpu_name ? r.gpu_name : "?"));
	if (r.driver_version)
		printf(", driver %s", pp_tty(r.driver_version));
	if (r.cuda_version)
		printf(", CUDA %s", pp_tty(r.cuda_version));
	if (r.nccl_version)
		printf(", NCCL %s", pp_tty(r.nccl_version));
	printf("\n");
	print_links(r.topology_json);
	printf("  rows      %zu", n);
	const char *kinds[] = {"collective", "gemm", "memcpy", "h2d", "d2h", "storage_write",
			       "storage_read"};
	for (size_t k = 0; k < PP_ARRAY_LEN(kinds); k++) {
		size_t c = 0;
		for (size_t i = 0; i < n; i++)
			c += !strcmp(rows[i].kind, kinds[k]);
		if (c)
			printf(", %s %zu", kinds[k], c);
	}
	printf("\n");
	print_peaks(rows, n);
	pp_sb now = {0};
	const char *vj = r.verdict_json;
	if (vj) {
		printf("\nhealth verdict (stored with the run)\n");
	} else {
		/* none stored (an imported log, a run killed mid-sweep): judged
		 * now, as 'podplan calib verdict' does */
		pp_catalog *cat = NULL;
		pp_verdict_host h;
		bool known;
		if (pp_catalog_load(&cat, NULL, &err) ||
		    pp_verdict_of_run(st, cat, id, NULL, &now, NULL, &h, &known, &err))
			printf("\nno health verdict (cannot judge: %s)\n", pp_tty(err.msg));
		else
			printf("\nhealth verdict (judged now%s%s; thresholds in models/health.json)\n",
			       strcmp(pp_calibdb_effective_status(&r), "complete") ? ", the run did not finish" : "",
			       known ? "" : ", links not recorded");
		vj = now.buf;
		pp_catalog_free(cat);
	}
	if (vj) {
		pp_sb sb = {0};
		if (pp_calibdb_format_verdict(vj, &sb, &err)) {
			printf("  (unreadable: %s)\n", err.msg);
		} else {
			/* the verdict's texts come from the store: escaped, its lines kept */
			for (char *line = sb.buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
				nl = strchr(line, '\n');
				if (nl)
					*nl = '\0';
				pp_sb esc = {0};
				pp_sb_add_tty(&esc, line);
				printf("%s%s", esc.buf ? esc.buf : "", nl ? "\n" : "");
				pp_sb_release(&esc);
			}
		}
		pp_sb_release(&sb);
	}
	pp_sb_release(&now);
	pp_calib_meas_free(rows, n);
	pp_calib_run_release(&r);
	return 0;
}

static int cmd_verdict(pp_store *st, int64_t id, const pp_verdict_opts *o, bool json, bool save)
{
	pp_err err = {0};
	pp_catalog *cat = NULL;
	pp_verdict_host h;
	pp_sb v = {0}, t = {0};
	bool known = false;
	int slow = 0, rc = 0;
	if (pp_catalog_load(&cat, NULL, &err) ||
	    pp_verdict_of_run(st, cat, id, o, &v, &slow, &h, &known, &err) ||
	    (save && pp_calibdb_set_verdict(st, id, v.buf, &err)) ||
	    (!json && pp_calibdb_format_verdict(v.buf, &t, &err))) {
		rc = pp_cli_fail(&err);
		goto out;
	}
	if (json) {
		printf("%s\n", v.buf);
	} else {
		printf("health verdict of run %lld (%s x %d%s; thresholds in models/health.json)\n",
		       (long long)id, pp_tty(h.gpu_name), h.ngpus, known ? "" : "; links not recorded");
		for (char *line = t.buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			pp_sb esc = {0};
			pp_sb_add_tty(&esc, line);
			printf("%s%s", esc.buf ? esc.buf : "", nl ? "\n" : "");
			pp_sb_release(&esc);
		}
		if (save)
			printf("(stored with run %lld)\n", (long long)id);
	}
	/* wrong results fail the verdict, as they fail podplan-calibrate's
	 * sweep (exit status 1); a SLOW row is a finding, not a failure */
	if (pp_calibdb_verdict_count(v.buf, "WRONG") > 0) {
		fprintf(stderr, "podplan calib: run %lld computed wrong results (the correctness "
			"row): do not calibrate from it\n", (long long)id);
		rc = 1;
	}
out:
	pp_sb_release(&v);
	pp_sb_release(&t);
	pp_catalog_free(cat);
	return rc;
}

static int cmd_export(pp_store *st, int64_t id, bool json, const char *output)
{
	pp_err err = {0};
	pp_sb sb = {0};
	int rc = 0;
	if (!id && pp_calibdb_latest_run(st, &id, &err))
		return pp_cli_fail(&err);
	if ((json ? pp_calibdb_export_json(st, id, &sb, &err) : pp_calibdb_export_csv(st, id, &sb, &err)) ||
	    (output && pp_write_file_atomic(output, sb.buf, sb.len, &err))) {
		rc = pp_cli_fail(&err);
	} else if (!output) {
		fwrite(sb.buf, 1, sb.len, stdout);
	} else {
		fprintf(stderr, "podplan calib: wrote run %lld to %s\n", (long long)id, output);
	}
	pp_sb_release(&sb);
	return rc;
}

static int cmd_import(pp_store *st, char **logs, int nlogs, const pp_ncclimport_opts *o)
{
	int worst = 0;
	for (int i = 0; i < nlogs; i++) {
		pp_err err = {0};
		pp_nccl_log log;
		int64_t id = 0;
		if (pp_ncclimport_file(st, logs[i], o, &id, &log, &err)) {
			int rc = pp_cli_fail(&err);
			if (rc > worst)
				worst = rc;
			continue;
		}
		for (size_t s = 0; s < log.nsections; s++) {
			const pp_nccl_section *sec = &log.sections[s];
			size_t cols = 0;
			bool inpl = false;
			if (!sec->nrows)
				continue;
			for (size_t r = 0; r < sec->nrows; r++) {
				cols += sec->rows[r].has[0] + sec->rows[r].has[1];
				inpl |= sec->rows[r].has[1];
			}
			printf("%s: %s (from the %s), %d ranks on %d host%s, %zu sizes, %zu rows%s -> run "
			       "%lld\n", pp_tty(logs[i]), sec->op, sec->op_from, sec->nranks, sec->nhosts,
			       sec->nhosts == 1 ? "" : "s", sec->nrows, cols,
			       inpl ? " (out-of-place and in-place)" : " (out-of-place)", (long long)id);
		}
		if (log.warnings[0])
			fprintf(stderr, "podplan calib: warning: %s\n", pp_tty(log.warnings));
		pp_nccl_log_release(&log);
	}
	return worst;
}

int pp_cmd_calib(int argc, char **argv)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, 'd'},   {"csv", no_argument, NULL, 'c'},
		{"json", no_argument, NULL, 'j'},       {"output", required_argument, NULL, 'o'},
		{"op", required_argument, NULL, 'p'},   {"scope", required_argument, NULL, 's'},
		{"nranks", required_argument, NULL, 'n'}, {"help", no_argument, NULL, 'h'},
		{"gpu-sku", required_argument, NULL, 'g'}, {"storage-expect", required_argument, NULL, 'e'},
		{"save", no_argument, NULL, 'S'},
		{0, 0, 0, 0}};
	static const char *const subs[] = {"list", "show", "export", "import-nccl-tests", "verdict"};
	static const char *const scopes[] = {"nvlink", "pcie", "net", "local"};
	const char *db = NULL, *output = NULL;
	bool json = false, csv = false, save = false;
	pp_ncclimport_opts io = {0};
	pp_verdict_opts vo = {0};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'c': csv = true; break;
		case 'j': json = true; break;
		case 'o': output = optarg; break;
		case 'p': io.op = optarg; break;
		case 's': io.scope = optarg; break;
		case 'g': vo.gpu_sku = optarg; break;
		case 'e': vo.storage_id = optarg; break;
		case 'S': save = true; break;
		case 'n': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < 1 || v > 1000000)
				return pp_cli_usage_error("calib", "--nranks: found '%s', expected a "
							  "positive whole number", optarg);
			io.nranks = (int)v;
			break;
		}
		case 'h': help(); return 0;
		default: return pp_cli_usage_error("calib", "unknown option");
		}
	}
	if (optind >= argc)
		return pp_cli_usage_error("calib", "expected a subcommand: list, show, verdict, "
					  "export or import-nccl-tests");
	const char *sub = argv[optind++];
	size_t si;
	for (si = 0; si < PP_ARRAY_LEN(subs) && strcmp(sub, subs[si]); si++)
		;
	if (si == PP_ARRAY_LEN(subs)) {
		const char *dym = pp_did_you_mean(sub, subs, PP_ARRAY_LEN(subs));
		return pp_cli_usage_error("calib", "unknown subcommand '%s'%s%s%s; expected list, show, "
					  "verdict, export or import-nccl-tests", sub,
					  dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
	}
	if (json && csv)
		return pp_cli_usage_error("calib", "--csv and --json exclude each other");
	if (io.scope) {
		size_t k;
		for (k = 0; k < PP_ARRAY_LEN(scopes) && strcmp(io.scope, scopes[k]); k++)
			;
		if (k == PP_ARRAY_LEN(scopes))
			return pp_cli_usage_error("calib", "--scope: found '%s', expected nvlink, pcie, "
						  "net or local", io.scope);
	}
	int64_t id = 0;
	int rc = 0;
	switch (si) {
	case 0:
		if (optind != argc)
			return pp_cli_usage_error("calib", "list takes no arguments");
		break;
	case 1:
		if (optind + 1 != argc)
			return pp_cli_usage_error("calib", "show takes one RUN id");
		if ((rc = parse_run_id(argv[optind], &id)))
			return rc;
		break;
	case 4:
		if (optind + 1 != argc)
			return pp_cli_usage_error("calib", "verdict takes one RUN id");
		if ((rc = parse_run_id(argv[optind], &id)))
			return rc;
		break;
	case 2:
		if (optind + 1 < argc)
			return pp_cli_usage_error("calib", "export takes at most one RUN id");
		if (optind < argc && (rc = parse_run_id(argv[optind], &id)))
			return rc;
		break;
	case 3:
		if (optind >= argc)
			return pp_cli_usage_error("calib", "import-nccl-tests needs at least one LOG file");
		break;
	}
	pp_store *st;
	if ((vo.gpu_sku || vo.storage_id || save) && si != 4)
		return pp_cli_usage_error("calib", "--gpu-sku, --storage-expect and --save are options "
					  "of 'calib verdict'");
	if ((rc = open_store(db, si == 3 || (si == 4 && save), &st)))
		return rc;
	switch (si) {
	case 0: rc = cmd_list(st); break;
	case 1: rc = cmd_show(st, id); break;
	case 2: rc = cmd_export(st, id, json, output); break;
	case 4: rc = cmd_verdict(st, id, &vo, json, save); break;
	default: rc = cmd_import(st, argv + optind, argc - optind, &io); break;
	}
	pp_store_close(st);
	return rc;
}
