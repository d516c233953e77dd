/* imprecipe.c - a Megatron-Bridge recipe function read statement by
 * statement into its assignments (impint.h pp_bridge_read): `cfg =
 * _pretrain_common()` and its defaults (recipes/common.py at 067f987d),
 * `cfg = other_recipe()` followed, `cfg.SECTION.KEY = VALUE` kept with the
 * value normalised, the model's repository from `AutoBridge.
 * from_hf_pretrained`, the mixed-precision recipe, CommOverlapConfig's
 * keywords, apply_flex_dispatcher_backend's choice; any other statement
 * refused by file:line. What the assignments mean is impbridge.c's. */
#include "input/impint.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef pp_bridge_recipe recipe;


static void trim(char *s)
{
	size_t n = strlen(s), a = 0;
	while (a < n && isspace((unsigned char)s[a]))
		a++;
	while (n > a && isspace((unsigned char)s[n - 1]))
		n--;
	memmove(s, s + a, n - a);
	s[n - a] = 0;
}

static bool is_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* e normalised into out: a string literal in double quotes ("full"), a
 * module constant replaced by its value, DEFAULT_NULL_TOKENIZER_VOCAB_SIZE
 * by 32000 (recipes/utils/tokenizer_utils.py at 067f987d); numbers, True,
 * False, None, torch.DTYPE and anything else (a call, a list) as written. */
static void value(const pp_py *py, const char *e, char *out, size_t n, int depth)
{
	char t[1024];
	snprintf(t, sizeof(t), "%s", e);
	trim(t);
	size_t len = strlen(t);
	if (len >= 2 && (t[0] == '"' || t[0] == '\'') && t[len - 1] == t[0] &&
	    !memchr(t + 1, t[0], len - 2)) {
		snprintf(out, n, "\"%.*s\"", (int)(len - 2), t + 1);
		return;
	}
	if (is_ident(t) && depth < 4) {
		const char *c = pp_py_constant(py, t);
		if (c) {
			value(py, c, out, n, depth + 1);
			return;
		}
		if (!strcmp(t, "DEFAULT_NULL_TOKENIZER_VOCAB_SIZE")) {
			snprintf(out, n, "32000");
			return;
		}
	}
	snprintf(out, n, "%s", t);
}

bool pp_bridge_is_str(const char *v, const char *s)
{
	size_t n = strlen(s);
	return v[0] == '"' && !strncmp(v + 1, s, n) && v[n + 1] == '"' && !v[n + 2];
}

/* A value that leaves a feature off. */
bool pp_bridge_is_off(const char *v)
{
	return !strcmp(v, "False") || !strcmp(v, "None") || !strcmp(v, "0") || pp_bridge_is_str(v, "none") ||
	       !strcmp(v, "[]");
}

static void rec(recipe *r, const char *key, const char *val, int line)
{
	pp_imp_args *a = &r->a;
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 64;
		a->a = pp_xrealloc(a->a, a->cap * sizeof(a->a[0]));
	}
	pp_imp_arg *g = &a->a[a->n++];
	memset(g, 0, sizeof(*g));
	snprintf(g->flag, sizeof(g->flag), "%s", key);
	g->val[0] = pp_xstrdup(val);
	g->nval = 1;
	g->line = line;
}

/* Forget the assignments under prefix (a section replaced as a whole). */
static void forget(recipe *r, const char *prefix)
{
	size_t n = strlen(prefix), k = 0;
	for (size_t i = 0; i < r->a.n; i++) {
		pp_imp_arg *g = &r->a.a[i];
		if (!strncmp(g->flag, prefix, n) && g->flag[n] == '.') {
			free(g->val[0]);
			continue;
		}
		r->a.a[k++] = *g;
	}
	r->a.n = k;
}

/* _pretrain_common()'s fields that reach the step (recipes/common.py). */
static void common(recipe *r, int line)
{
	static const char *const kv[][2] = {
		{"train.global_batch_size", "32"}, {"train.micro_batch_size", "2"},
		{"train.train_iters", "300000"}, {"dataset.seq_length", "4096"},
		{"ddp.overlap_grad_reduce", "True"}, {"ddp.overlap_param_gather", "True"},
		{"ddp.use_distributed_optimizer", "True"}, {"mixed_precision", "\"bf16_mixed\""},
		{"tokenizer.tokenizer_type", "\"HuggingFaceTokenizer\""}, {"comm_overlap", "None"},
	};
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		rec(r, kv[i][0], kv[i][1], line);
	r->common_line = line;
}

/* The argument list of call "NAME(...)" in s: the text inside the outer
 * parentheses, into out; false when s is no call of name. */
static bool call_args(const char *s, const char *name, char *out, size_t n)
{
	size_t k = strlen(name);
	if (strncmp(s, name, k) || s[k] != '(')
		return false;
	const char *b = s + k + 1, *e = strrchr(s, ')');
	if (!e || e < b)
		return false;
	snprintf(out, n, "%.*s", (int)(e - b), b);
	trim(out);
	return true;
}

/* CommOverlapConfig(kw=value, ...): each keyword as comm_overlap.kw. */
static int comm_overlap(recipe *r, const char *rhs, int line, pp_err *err)
{
	char args[1024], v[512];
	forget(r, "comm_overlap");
	value(r->py, rhs, v, sizeof(v), 0);
	if (!strcmp(v, "None")) {
		rec(r, "comm_overlap", "None", line);
		return 0;
	}
	if (!call_args(rhs, "CommOverlapConfig", args, sizeof(args)))
		return pp_errf(err, PP_EINPUT, "%s:%d: cfg.comm_overlap = %s: found an expression "
			       "podplan does not read; expected CommOverlapConfig(keyword=value, ...) "
			       "or None", r->file, line, rhs);
	rec(r, "comm_overlap", "CommOverlapConfig", line);
	for (char *save = NULL, *kw = strtok_r(args, ",", &save); kw; kw = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kw, '=');
		if (!eq)
			return pp_errf(err, PP_EINPUT, "%s:%d: CommOverlapConfig(%s): found a positional "
				       "argument; expected keyword=value", r->file, line, kw);
		*eq = 0;
		trim(kw);
		char key[96];
		snprintf(key, sizeof(key), "comm_overlap.%s", kw);
		value(r->py, eq + 1, v, sizeof(v), 0);
		rec(r, key, v, line);
	}
	return 0;
}

/* The mixed-precision recipe a statement names: "bf16_mixed" as a string,
 * bf16_mixed() or get_mixed_precision_config("bf16_mixed"). */
static int mixed_precision(recipe *r, const char *rhs, int line, pp_err *err)
{
	char args[256], v[256], nm[160];
	forget(r, "mixed_precision");
	value(r->py, rhs, v, sizeof(v), 0);
	if (v[0] == '"') {
		snprintf(nm, sizeof(nm), "%s", v);
	} else if (call_args(rhs, "get_mixed_precision_config", args, sizeof(args))) {
		value(r->py, args, nm, sizeof(nm), 0);
		if (nm[0] != '"')
			return pp_errf(err, PP_EINPUT, "%s:%d: get_mixed_precision_config(%s): found a "
				       "name podplan cannot resolve; expected a recipe's name as a string",
				       r->file, line, args);
	} else {
		size_t k = strcspn(rhs, "(");
		if (!rhs[k] || strcmp(rhs + k, "()"))
			return pp_errf(err, PP_EINPUT, "%s:%d: cfg.mixed_precision = %s: found an "
				       "expression podplan does not read; expected a mixed-precision "
				       "recipe: NAME(), get_mixed_precision_config(\"NAME\") or \"NAME\"",
				       r->file, line, rhs);
		snprintf(nm, sizeof(nm), "\"%.*s\"", (int)k, rhs);
	}
	rec(r, "mixed_precision", nm, line);
	return 0;
}

/* The model's repository: AutoBridge.from_hf_pretrained(REPO, ...). */
static int model_source(recipe *r, const char *rhs, int line, pp_err *err)
{
	const char *p = strstr(rhs, "AutoBridge.from_hf_pretrained(");
	if (!p)
		return pp_errf(err, PP_EINPUT, "%s:%d: cfg.model = %s: found a model podplan cannot "
			       "read; expected AutoBridge.from_hf_pretrained(\"org/name\")...", r->file,
			       line, rhs);
	p += strlen("AutoBridge.from_hf_pretrained(");
	char arg[256], v[256];
	size_t k = strcspn(p, ",)");
	snprintf(arg, sizeof(arg), "%.*s", (int)k, p);
	value(r->py, arg, v, sizeof(v), 0);
	if (v[0] != '"')
		return pp_errf(err, PP_EINPUT, "%s:%d: AutoBridge.from_hf_pretrained(%s): found a name "
			       "podplan cannot resolve; expected a repository name as a string or a "
			       "module constant", r->file, line, arg);
	snprintf(r->repo, sizeof(r->repo), "%.*s", (int)(strlen(v) - 2), v + 1);
	r->repo_line = line;
	forget(r, "model");
	return 0;
}

/* Split "LHS = RHS" at its assignment; false when s assigns nothing (a
 * comparison, an augmented assignment count as none). */
static bool assignment(const char *s, char *lhs, size_t nl, const char **rhs)
{
	int depth = 0;
	for (const char *c = s; *c; c++) {
		if (*c == '"' || *c == '\'')
			return false;
		if (strchr("([{", *c))
			depth++;
		else if (strchr(")]}", *c))
			depth--;
		if (*c != '=' || depth)
			continue;
		if (c[1] == '=' || (c > s && strchr("=!<>+-*/%&|^:@", c[-1])))
			return false;
		snprintf(lhs, nl, "%.*s", (int)(c - s), s);
		trim(lhs);
		*rhs = c + 1;
		while (**rhs == ' ')
			(*rhs)++;
		return true;
	}
	return false;
}

static int run(recipe *r, const char *func, int depth, pp_err *err)
{
	size_t first, end;
	int d = pp_py_function(r->py, func, &first, &end);
	if (d < 0)
		return pp_errf(err, PP_EINPUT, "%s: found no function %s; expected a recipe function "
			       "defined in the file", r->file, func);
	const pp_py_stmt *def = &r->py->s[d];
	const char *par = strchr(def->text, '(');
	if (!par || par[1] != ')')
		return pp_errf(err, PP_EINPUT, "%s:%d: %s takes arguments: refused: podplan reads a "
			       "recipe function without parameters (their values are a caller's)",
			       r->file, def->line, func);
	if (depth > 8)
		return pp_errf(err, PP_EINPUT, "%s:%d: %s: recipes call each other more than 8 deep",
			       r->file, def->line, func);
	for (size_t i = first; i < end; i++) {
		const pp_py_stmt *st = &r->py->s[i];
		const char *s = st->text, *rhs = NULL;
		char lhs[256], args[256];
		int rc;
		if (s[0] == '"' || s[0] == '\'')
			continue; /* a docstring */
		if (!strcmp(s, "return cfg"))
			return 0;
		if (assignment(s, lhs, sizeof(lhs), &rhs) && !strcmp(lhs, "cfg")) {
			if (!strcmp(rhs, "_pretrain_common()")) {
				common(r, st->line);
				continue;
			}
			size_t k = strcspn(rhs, "(");
			char callee[128];
			snprintf(callee, sizeof(callee), "%.*s", (int)k, rhs);
			size_t f0, f1;
			if (!strcmp(rhs + k, "()") && pp_py_function(r->py, callee, &f0, &f1) >= 0 &&
			    strcmp(callee, "_sft_common") && strcmp(callee, "_peft_common")) {
				if ((rc = run(r, callee, depth + 1, err)))
					return rc;
				continue;
			}
			return pp_errf(err, PP_EINPUT, "%s:%d: cfg = %s: refused: podplan reads a "
				       "pre-training recipe built on _pretrain_common() (or on another "
				       "recipe of the file called without arguments)%s", r->file,
				       st->line, rhs, strstr(rhs, "_sft_common") || strstr(rhs, "_peft_common")
				       ? "; fine-tuning recipes are not read" : "");
		}
		if (rhs && !strncmp(lhs, "cfg.", 4)) {
			const char *key = lhs + 4;
			if (!strcmp(key, "model"))
				rc = model_source(r, rhs, st->line, err);
			else if (!strcmp(key, "mixed_precision"))
				rc = mixed_precision(r, rhs, st->line, err);
			else if (!strcmp(key, "comm_overlap"))
				rc = comm_overlap(r, rhs, st->line, err);
			else {
				char v[512];
				value(r->py, rhs, v, sizeof(v), 0);
				rec(r, key, v, st->line);
				rc = 0;
			}
			if (rc)
				return rc;
			continue;
		}
		if (call_args(s, "apply_flex_dispatcher_backend", args, sizeof(args))) {
			/* Bridge selects flex (DeepEP, HybridEP) on the GPUs that have it
			 * (training/flex_dispatcher_backend.py): a backend named is flex */
			const char *comma = strchr(args, ',');
			char v[256];
			value(r->py, comma ? comma + 1 : "", v, sizeof(v), 0);
			if (!strncmp(v, "cfg.", 4)) {
				const char *got = pp_imp_get(&r->a, v + 4, NULL);
				snprintf(v, sizeof(v), "%s", got ? got : "None");
			}
			if (pp_bridge_is_str(v, "deepep") || pp_bridge_is_str(v, "hybridep"))
				rec(r, "model.moe_token_dispatcher_type", "\"flex\"", st->line);
			continue;
		}
		return pp_errf(err, PP_EINPUT, "%s:%d: %s: refused: a statement podplan does not "
			       "read in a recipe; expected cfg.SECTION.KEY = VALUE (a literal or a "
			       "module constant), cfg = _pretrain_common() or return cfg", r->file,
			       st->line, s);
	}
	return 0;
}

int pp_bridge_read(pp_bridge_recipe *r, const char *func, pp_err *err)
{
	return run(r, func, 0, err);
}
