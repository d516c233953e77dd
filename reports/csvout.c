/*
 * csvout.c - the report's CSV files: every number the page shows, one file
 * per table or chart, RFC 4180 (quoted where needed, CRLF line ends), SI
 * units named in the column headers, empty fields for undefined values.
 * The header lines are a format: tests/golden/report-csv-headers.txt.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void cnum(pp_sb *sb, double v)
{
	pp_sb_adds(sb, ",");
	if (isfinite(v))
		pp_sb_addf(sb, "%.10g", v);
}

/* A text field. One starting with = + - @ (or a tab/CR) is a formula to a
 * spreadsheet (OWASP "CSV injection"): a leading ' keeps it text. */
static void ctext(pp_sb *sb, const char *s)
{
	if (!s)
		s = "";
	if (*s && strchr("=+-@\t\r", *s)) {
		pp_sb sq = {0};
		pp_sb_adds(&sq, "'");
		pp_sb_adds(&sq, s);
		pp_sb_add_csv(sb, sq.buf);
		pp_sb_release(&sq);
		return;
	}
	pp_sb_add_csv(sb, s);
}

static void cstr(pp_sb *sb, const char *s)
{
	pp_sb_adds(sb, ",");
	ctext(sb, s);
}

static pp_sb *add_file(pp_report_file *files, int *n, int max, const char *name, const char *header)
{
	if (*n >= max)
		return NULL;
	pp_report_file *f = &files[(*n)++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	pp_sb_adds(&f->body, header);
	pp_sb_adds(&f->body, "\r\n");
	return &f->body;
}

static void step_row(pp_sb *sb, const char *name, const char *kind, const char *gpu, int ngpus,
		     const char *method, double step, const pp_breakdown *b, double tok, double mfu,
		     double mem, double cap, double goodput, double ckpt, double ttt, double lead)
{
	double parts[PP_REPORT_NBD];
	pp_report_bd_parts(b, parts);
	ctext(sb, name);
	cstr(sb, kind);
	cstr(sb, gpu);
	pp_sb_addf(sb, ",%d", ngpus);
	cstr(sb, method);
	cnum(sb, step);
	for (int k = 0; k < PP_REPORT_NBD; k++)
		cnum(sb, isfinite(step) ? parts[k] : NAN);
	cnum(sb, tok);
	cnum(sb, mfu);
	cnum(sb, mem);
	cnum(sb, cap);
	cnum(sb, goodput);
	cnum(sb, ckpt);
	cnum(sb, ttt);
	cnum(sb, lead);
	pp_sb_adds(sb, "\r\n");
}

#define STEP_HEADER                                                                             \
	"option,kind,gpu,num_gpus,method,step_time_s,compute_s,tp_comm_exposed_s,"              \
	"dp_comm_exposed_s,pp_bubble_s,pp_comm_exposed_s,optimizer_s,data_s,tokens_per_s,mfu,"  \
	"memory_per_gpu_bytes,memory_capacity_bytes,goodput,checkpoint_interval_s,"             \
	"time_to_train_s,lead_time_s"

static void cost_files(const pp_report *r, pp_report_file *files, int *n, int max)
{
	const pp_cost_result *c = &r->cost;
	pp_sb *sb;
	/* options.csv: the cost engine's own CSV (PP_COST_CSV_HEADER) */
	if (*n < max) {
		pp_report_file *f = &files[(*n)++];
		memset(f, 0, sizeof(*f));
		snprintf(f->name, sizeof(f->name), "options.csv");
		pp_cost_to_csv(c, &f->body);
	}
	if ((sb = add_file(files, n, max, "step_time.csv", STEP_HEADER)))
		for (int i = 0; i < c->noptions; i++) {
			const pp_cost_option *o = &c->options[i];
			step_row(sb, o->name, pp_option_kind_names[o->kind], o->gpu, o->num_gpus, o->method,
				 o->step_time_s, &o->breakdown, o->tokens_per_s, o->mfu,
				 o->memory_per_gpu_bytes, o->memory_capacity_bytes, o->goodput,
				 o->checkpoint_interval_s, o->time_to_train_s, o->lead_time_s);
		}
	if ((sb = add_file(files, n, max, "cumulative_cost.csv", "option,month,cumulative_usd")))
		for (int i = 0; i < c->noptions; i++) {
			const pp_cost_option *o = &c->options[i];
			for (int m = 0; o->cum_usd && m <= o->nmonths; m++) {
				ctext(sb, o->name);
				pp_sb_addf(sb, ",%d", m);
				cnum(sb, o->cum_usd[m]);
				pp_sb_adds(sb, "\r\n");
			}
		}
	if ((sb = add_file(files, n, max, "tornado.csv",
			   "option,driver,unit,base_input,low_input,high_input,base_usd,low_usd,"
			   "high_usd,low_margin_usd,high_margin_usd,swing_usd")))
		for (int i = 0; i < c->ntornado; i++) {
			const pp_tornado_row *t = &c->tornado[i];
			const pp_cost_option *w = c->recommended >= 0 ? &c->options[c->recommended] : NULL;
			ctext(sb, w ? w->name : "");
			cstr(sb, t->driver);
			cstr(sb, t->unit);
			cnum(sb, t->base_input);
			cnum(sb, t->low_input);
			cnum(sb, t->high_input);
			cnum(sb, w ? w->usd_total : NAN);
			cnum(sb, t->low_usd);
			cnum(sb, t->high_usd);
			cnum(sb, t->low_margin_usd);
			cnum(sb, t->high_margin_usd);
			cnum(sb, t->swing_usd);
			pp_sb_adds(sb, "\r\n");
		}
	if ((sb = add_file(files, n, max, "distribution.csv",
			   "option,bin,lo_usd,hi_usd,count,share,p10_usd,p50_usd,p90_usd,mean_usd,"
			   "p_cheapest")))
		for (int i = 0; i < c->noptions; i++) {
			const pp_cost_option *o = &c->options[i];
			int counts[40];
			double lo = 0, hi = 0;
			if (!o->feasible || pp_cost_histogram(o, 40, &lo, &hi, counts) <= 0)
				continue;
			double w = (hi - lo) / 40;
			for (int b = 0; b < 40; b++) {
				ctext(sb, o->name);
				pp_sb_addf(sb, ",%d", b);
				cnum(sb, lo + b * w);
				cnum(sb, lo + (b + 1) * w);
				pp_sb_addf(sb, ",%d", counts[b]);
				cnum(sb, o->nsamples > 0 ? (double)counts[b] / o->nsamples : NAN);
				cnum(sb, o->p10_usd);
				cnum(sb, o->p50_usd);
				cnum(sb, o->p90_usd);
				cnum(sb, o->mean_usd);
				cnum(sb, o->p_cheapest);
				pp_sb_adds(sb, "\r\n");
			}
		}
	if ((sb = add_file(files, n, max, "finance.csv",
			   "option,versus,capex_usd,residual_usd,discount_rate,npv_usd,irr,"
			   "payback_months,discounted_payback_months,crossover_month,utilization,"
			   "usd_per_gpu_hour_used,breakeven_utilization")))
		for (int i = 0; i < c->noptions; i++) {
			const pp_cost_fin *f = &c->options[i].fin;
			if (!f->valid)
				continue;
			ctext(sb, c->options[i].name);
			cstr(sb, f->versus);
			cnum(sb, f->capex_usd);
			cnum(sb, f->residual_usd);
			cnum(sb, f->discount_rate);
			cnum(sb, f->npv_usd);
			cnum(sb, f->irr);
			cnum(sb, f->payback_months);
			cnum(sb, f->discounted_payback_months);
			cnum(sb, f->crossover_month);
			cnum(sb, f->utilization);
			cnum(sb, f->usd_per_gpu_hour_used);
			cnum(sb, f->breakeven_utilization);
			pp_sb_adds(sb, "\r\n");
		}
	if ((sb = add_file(files, n, max, "sources.csv",
			   "item,value,unit,source,url,date,age_months,estimate")))
		for (int i = 0; i < c->nsources; i++) {
			const pp_cost_source *f = &c->sources[i];
			ctext(sb, f->item);
			cnum(sb, f->value);
			cstr(sb, f->unit);
			cstr(sb, f->source);
			cstr(sb, f->url);
			cstr(sb, f->date);
			cnum(sb, f->age_months);
			pp_sb_adds(sb, f->estimate ? ",true\r\n" : ",false\r\n");
		}
}

static void pred_files(const pp_report *r, pp_report_file *files, int *n, int max)
{
	const pp_result *p = &r->pred;
	const pp_scenario *s = r->s;
	pp_sb *sb;
	if ((sb = add_file(files, n, max, "step_time.csv", STEP_HEADER)))
		step_row(sb, s->name, "scenario", s->cluster.gpu->id, s->cluster.num_gpus, "full",
			 p->step_time_s, &p->breakdown, p->tokens_per_s, p->mfu, p->memory.total_bytes,
			 p->memory.capacity_bytes, NAN, NAN,
			 s->training.train_tokens > 0 ? p->time_to_train_s : NAN, 0);
	if ((sb = add_file(files, n, max, "memory.csv", "part,bytes_per_gpu"))) {
		const pp_memory *m = &p->memory;
		static const char *const k[] = {"weights", "gradients", "optimizer", "activations",
						"temporary", "fragmentation", "total", "capacity"};
		double v[] = {m->weights_bytes, m->grads_bytes, m->optimizer_bytes, m->activations_bytes,
			      m->temp_bytes, m->fragmentation_bytes, m->total_bytes, m->capacity_bytes};
		for (size_t i = 0; i < PP_ARRAY_LEN(k); i++) {
			pp_sb_adds(sb, k[i]);
			cnum(sb, v[i]);
			pp_sb_adds(sb, "\r\n");
		}
	}
	if ((sb = add_file(files, n, max, "scenario.csv", "metric,value,unit"))) {
		static const char *const k[] = {"step_time", "tokens_per_step", "tokens_per_s", "mfu",
						"hfu", "model_tflops_per_gpu", "time_to_train",
						"steps_to_train", "params", "checkpoint", "checkpoint_write",
						"worst_stage", "fits"};
		static const char *const u[] = {"s", "tokens", "tokens/s", "fraction", "fraction",
						"TFLOP/s", "s", "steps", "parameters", "bytes", "s",
						"stage", "bool"};
		double v[] = {p->step_time_s, p->tokens_per_step, p->tokens_per_s, p->mfu, p->hfu,
			      p->model_tflops_per_gpu,
			      s->training.train_tokens > 0 ? p->time_to_train_s : NAN,
			      s->training.train_tokens > 0 ? p->steps_to_train : NAN, p->params_total,
			      p->checkpoint_bytes, p->checkpoint_write_s, p->memory.worst_stage,
			      p->memory.fits ? 1 : 0};
		for (size_t i = 0; i < PP_ARRAY_LEN(k); i++) {
			pp_sb_adds(sb, k[i]);
			cnum(sb, v[i]);
			cstr(sb, u[i]);
			pp_sb_adds(sb, "\r\n");
		}
	}
}

int pp_report_csv(const pp_report *r, pp_report_file *files, int max)
{
	int n = 0;
	pp_sb *sb;
	if (r->have_cost)
		cost_files(r, files, &n, max);
	else if (r->have_pred)
		pred_files(r, files, &n, max);
	if ((sb = add_file(files, &n, max, "parameters.csv", "parameter,origin")))
		for (int i = 0; i < r->hw.norigins; i++) {
			ctext(sb, r->hw.origins[i].name);
			cstr(sb, r->hw.origins[i].origin);
			pp_sb_adds(sb, "\r\n");
		}
	if ((sb = add_file(files, &n, max, "calibration.csv",
			   "run_id,check,scope,measured,expected,unit,ratio,verdict,cause")))
		for (int i = 0; i < r->nverdict; i++) {
			const pp_report_verdict *v = &r->verdict[i];
			pp_sb_addf(sb, "%lld", (long long)v->run_id);
			cstr(sb, v->check);
			cstr(sb, v->scope);
			cnum(sb, v->measured);
			cnum(sb, v->expected);
			cstr(sb, v->unit);
			cnum(sb, v->ratio);
			cstr(sb, v->verdict);
			cstr(sb, v->cause);
			pp_sb_adds(sb, "\r\n");
		}
	if ((sb = add_file(files, &n, max, "warnings.csv", "warning")))
		for (int i = 0; i < r->nwarnings; i++) {
			ctext(sb, r->warnings[i]);
			pp_sb_adds(sb, "\r\n");
		}
	return n;
}

void pp_report_files_release(pp_report_file *files, int n)
{
	for (int i = 0; i < n; i++)
		pp_sb_release(&files[i].body);
}
