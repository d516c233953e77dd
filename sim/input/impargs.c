/* impargs.c - launch text read into arguments (impint.h). Not a shell: it
 * reads what launch scripts as published do - NAME=value assignments,
 * $NAME / ${NAME} / ${NAME:-default} expansions, bash arrays of arguments,
 * quoted groups of arguments ("--fp8-format hybrid"), comments, line
 * continuations - and leaves anything it cannot expand as written, so an
 * unexpanded value reaches the importer's own checks ($1 in a mapped key
 * is refused there; in a path it is ignored with the path). */
#include "input/impint.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct var {
	char name[64];
	char *value;
} var;

typedef struct vars {
	var v[256];
	int n;
} vars;

static const char *var_get(const vars *vs, const char *name)
{
	for (int i = vs->n - 1; i >= 0; i--)
		if (!strcmp(vs->v[i].name, name))
			return vs->v[i].value;
	return NULL;
}

static void var_set(vars *vs, const char *name, const char *value)
{
	for (int i = 0; i < vs->n; i++)
		if (!strcmp(vs->v[i].name, name)) {
			free(vs->v[i].value);
			vs->v[i].value = pp_xstrdup(value);
			return;
		}
	if (vs->n >= (int)(sizeof(vs->v) / sizeof(vs->v[0])))
		return;
	snprintf(vs->v[vs->n].name, sizeof(vs->v[vs->n].name), "%s", name);
	vs->v[vs->n].value = pp_xstrdup(value);
	vs->n++;
}

static void vars_release(vars *vs)
{
	for (int i = 0; i < vs->n; i++)
		free(vs->v[i].value);
	vs->n = 0;
}

/* Strip one level of quotes from s (in place). */
static void unquote(char *s)
{
	char *o = s;
	for (char *p = s; *p; p++)
		if (*p != '"' && *p != '\'')
			*o++ = *p;
	*o = 0;
}

/* line with $NAME, ${NAME}, ${NAME:-default} expanded where known (an
 * unset positional parameter $N is empty, ${N:-d} is d); the rest as
 * written. */
static void expand(const vars *vs, const char *line, pp_sb *out)
{
	for (const char *p = line; *p;) {
		if (*p != '$') {
			pp_sb_add(out, p, 1);
			p++;
			continue;
		}
		const char *q = p + 1;
		char name[64] = "", def[256] = "";
		bool braced = *q == '{', has_def = false;
		if (braced)
			q++;
		size_t n = 0;
		while ((isalnum((unsigned char)*q) || *q == '_') && n + 1 < sizeof(name))
			name[n++] = *q++;
		name[n] = 0;
		if (!n) {
			pp_sb_add(out, p, 1);
			p++;
			continue;
		}
		if (braced) {
			if (q[0] == ':' && q[1] == '-') {
				const char *e = strchr(q, '}');
				if (!e)
					goto literal;
				size_t dl = (size_t)(e - q - 2);
				if (dl >= sizeof(def))
					dl = sizeof(def) - 1;
				memcpy(def, q + 2, dl);
				def[dl] = 0;
				unquote(def);
				has_def = true;
				q = e;
			}
			if (*q != '}')
				goto literal;
			q++;
		}
		const char *val = var_get(vs, name);
		bool positional = isdigit((unsigned char)name[0]);
		if (val)
			pp_sb_adds(out, val);
		else if (has_def)
			pp_sb_adds(out, def);
		else if (!positional)
			goto literal;
		p = q;
		continue;
literal:
		pp_sb_add(out, p, (size_t)(q - p));
		p = q;
	}
	if (!out->buf)
		pp_sb_adds(out, "");
}

/* Logical lines: continuations joined, comments dropped (a # at a word's
 * start, outside quotes). Each line keeps the number of its first line. */
typedef struct lline {
	char *text;
	int line;
} lline;

static lline *logical_lines(const char *text, size_t *n)
{
	size_t cap = 64, k = 0;
	lline *ls = pp_xmalloc(cap * sizeof(*ls));
	pp_sb cur = {0};
	int lineno = 1, start = 1;
	char quote = 0;
	bool comment = false;
	for (const char *p = text;; p++) {
		char ch = *p;
		if (ch == '\\' && p[1] == '\n' && !comment) {
			p++;
			lineno++;
			pp_sb_adds(&cur, " ");
			continue;
		}
		if (ch == '\n' || ch == 0) {
			if (k == cap) {
				cap *= 2;
				ls = pp_xrealloc(ls, cap * sizeof(*ls));
			}
			ls[k].text = cur.buf ? pp_sb_detach(&cur) : pp_xstrdup("");
			ls[k].line = start;
			k++;
			memset(&cur, 0, sizeof(cur));
			quote = 0;
			comment = false;
			if (!ch)
				break;
			lineno++;
			start = lineno;
			continue;
		}
		if (comment)
			continue;
		if (quote) {
			if (ch == quote)
				quote = 0;
		} else if (ch == '"' || ch == '\'') {
			quote = ch;
		} else if (ch == '#' && (cur.len == 0 || isspace((unsigned char)cur.buf[cur.len - 1]))) {
			comment = true;
			continue;
		}
		pp_sb_add(&cur, p, 1);
	}
	*n = k;
	return ls;
}

/* The words of s: quotes removed, split at blanks (a quoted group of
 * arguments splits as the unquoted array expansion of a script splits it). */
static int words(char *s, char **w, int max)
{
	unquote(s);
	int n = 0;
	for (char *tok = strtok(s, " \t\r"); tok && n < max; tok = strtok(NULL, " \t\r"))
		w[n++] = tok;
	return n;
}

static bool is_flag(const char *w, bool short_ok)
{
	if (w[0] != '-' || !w[1])
		return false;
	if (w[1] == '-')
		return w[2] != 0 && !isdigit((unsigned char)w[2]);
	return short_ok && isalpha((unsigned char)w[1]);
}

static bool is_stop(const char *w)
{
	return !strcmp(w, ")") || !strcmp(w, "(") || !strcmp(w, "&") || !strcmp(w, "|") ||
	       !strcmp(w, ";") || !strcmp(w, "&&") || !strcmp(w, "||") || w[0] == '>' ||
	       strstr(w, "[@]") != NULL;
}

static void add_arg(pp_imp_args *a, const char *w, int line)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 32;
		a->a = pp_xrealloc(a->a, a->cap * sizeof(*a->a));
	}
	pp_imp_arg *g = &a->a[a->n++];
	memset(g, 0, sizeof(*g));
	/* "--x=v": the value apart; underscores read as dashes */
	const char *eq = strchr(w, '=');
	size_t fl = eq ? (size_t)(eq - w) : strlen(w);
	if (fl >= sizeof(g->flag))
		fl = sizeof(g->flag) - 1;
	memcpy(g->flag, w, fl);
	g->flag[fl] = 0;
	for (char *c = g->flag + 2; *c; c++)
		if (*c == '_')
			*c = '-';
	if (eq)
		g->val[g->nval++] = pp_xstrdup(eq + 1);
	g->line = line;
}

/* Arguments among the words w[0..n): each flag takes the words after it
 * until the next flag or a shell operator. Words before the first flag are
 * the command's operands (kept when operands is set). */
static void scan(pp_imp_args *a, char **w, int n, int line, bool short_ok, bool operands)
{
	pp_imp_arg *cur = NULL;
	for (int i = 0; i < n; i++) {
		if (is_stop(w[i])) {
			cur = NULL;
			if (strcmp(w[i], ")") && strcmp(w[i], "(") && !strstr(w[i], "[@]"))
				break;
			continue;
		}
		if (is_flag(w[i], short_ok)) {
			add_arg(a, w[i], line);
			cur = &a->a[a->n - 1];
			continue;
		}
		if (cur) {
			if (cur->nval < PP_IMP_VALS)
				cur->val[cur->nval++] = pp_xstrdup(w[i]);
		} else if (operands && a->npositional < 4) {
			a->positional[a->npositional++] = pp_xstrdup(w[i]);
		}
	}
}

static bool is_assignment(const char *w, char *name, size_t n)
{
	size_t i = 0;
	if (!(isalpha((unsigned char)w[0]) || w[0] == '_'))
		return false;
	while (w[i] && (isalnum((unsigned char)w[i]) || w[i] == '_'))
		i++;
	if (w[i] != '=' && !(w[i] == '+' && w[i + 1] == '='))
		return false;
	snprintf(name, n, "%.*s", (int)i, w);
	return true;
}

void pp_imp_read_script(const char *text, pp_imp_args *out)
{
	memset(out, 0, sizeof(*out));
	vars vs = {0};
	size_t nl;
	lline *ls = logical_lines(text, &nl);
	for (size_t i = 0; i < nl; i++) {
		pp_sb ex = {0};
		expand(&vs, ls[i].text, &ex);
		char *w[512];
		char *lead = ex.buf;
		while (isspace((unsigned char)*lead))
			lead++;
		if (!strncmp(lead, "export ", 7))
			lead += 7;
		char name[64];
		if (is_assignment(lead, name, sizeof(name))) {
			char *eq = strchr(lead, '=');
			char *val = eq + 1;
			if (*val != '(' && !strstr(val, "--")) {
				/* a scalar: up to the first blank outside quotes */
				char q = 0, *e = val;
				for (; *e; e++) {
					if (q) {
						if (*e == q)
							q = 0;
					} else if (*e == '"' || *e == '\'') {
						q = *e;
					} else if (isspace((unsigned char)*e)) {
						break;
					}
				}
				*e = 0;
				unquote(val);
				var_set(&vs, name, val);
				pp_sb_release(&ex);
				continue;
			}
			lead = *val == '(' ? val + 1 : val;
		}
		if (!strncmp(lead, "echo", 4) || !strncmp(lead, "printf", 6)) {
			pp_sb_release(&ex);
			continue;
		}
		int n = words(lead, w, 512);
		scan(out, w, n, ls[i].line, false, false);
		pp_sb_release(&ex);
	}
	for (size_t i = 0; i < nl; i++)
		free(ls[i].text);
	free(ls);
	vars_release(&vs);
}

int pp_imp_read_command(const char *text, const char *cmd, pp_imp_args *out, int *line)
{
	memset(out, 0, sizeof(*out));
	char cw[8][32];
	int ncw = 0;
	{
		char tmp[128];
		snprintf(tmp, sizeof(tmp), "%s", cmd);
		for (char *t = strtok(tmp, " "); t && ncw < 8; t = strtok(NULL, " "))
			snprintf(cw[ncw++], sizeof(cw[0]), "%s", t);
	}
	size_t nl;
	lline *ls = logical_lines(text, &nl);
	int rc = -1;
	for (size_t i = 0; i < nl && rc; i++) {
		char *w[512];
		int n = words(ls[i].text, w, 512);
		/* leading VAR=value environment words are the environment */
		int s = 0;
		char name[64];
		while (s < n && is_assignment(w[s], name, sizeof(name)))
			s++;
		if (n - s < ncw)
			continue;
		bool match = true;
		for (int k = 0; k < ncw && match; k++)
			match = !strcmp(w[s + k], cw[k]);
		/* `vllm serve` must not match `vllm bench serve` and the reverse */
		if (!match)
			continue;
		scan(out, w + s + ncw, n - s - ncw, ls[i].line, true, true);
		*line = ls[i].line;
		rc = 0;
	}
	for (size_t i = 0; i < nl; i++)
		free(ls[i].text);
	free(ls);
	return rc;
}

void pp_imp_args_release(pp_imp_args *a)
{
	for (size_t i = 0; i < a->n; i++)
		for (int k = 0; k < a->a[i].nval; k++)
			free(a->a[i].val[k]);
	for (int k = 0; k < a->npositional; k++)
		free(a->positional[k]);
	free(a->a);
	memset(a, 0, sizeof(*a));
}

const pp_imp_rule *pp_imp_find(const pp_imp_rule *rules, size_t n, const char *flag)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rules[i].name, flag))
			return &rules[i];
	return NULL;
}

const char *pp_imp_get(const pp_imp_args *a, const char *flag, int *line)
{
	const char *v = NULL;
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->a[i].flag, flag)) {
			v = a->a[i].nval ? a->a[i].val[0] : NULL;
			if (line)
				*line = a->a[i].line;
		}
	return v;
}

bool pp_imp_has(const pp_imp_args *a, const char *flag)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->a[i].flag, flag))
			return true;
	return false;
}

int pp_imp_check(const char *name, const char *what, const pp_imp_args *a,
		 const pp_imp_rule *rules, size_t n, pp_err *err)
{
	for (size_t i = 0; i < a->n; i++) {
		const pp_imp_arg *g = &a->a[i];
		const pp_imp_rule *r = pp_imp_find(rules, n, g->flag);
		if (!r) {
			const char *names[512];
			size_t k = 0;
			for (; k < n && k < 512; k++)
				names[k] = rules[k].name;
			const char *dym = pp_did_you_mean(g->flag, names, k);
			return pp_errf(err, PP_EINPUT, "%s:%d: %s: not a %s argument podplan knows%s%s%s; "
				       "expected one of its table (podplan import --mapping): mapped to "
				       "a scenario key, ignored with the reason, or refused by name",
				       name, g->line, g->flag, what, dym ? " (did you mean " : "",
				       dym ? dym : "", dym ? "?)" : "");
		}
		if (r->act == PP_IMP_REFUSE)
			return pp_errf(err, PP_EINPUT, "%s:%d: %s: refused: %s", name, g->line, g->flag,
				       r->why);
		/* an ignored argument may lose its value to an unset variable
		 * (--data-path $5); a switch followed by words: the words are a
		 * script's operands (torchrun ... pretrain_gpt.py) unless they look
		 * like a value */
		if (r->nvals == 1 && g->nval == 0 && r->act == PP_IMP_MAP && r->conv != PP_IMPV_SPECIAL)
			return pp_errf(err, PP_EINPUT, "%s:%d: %s: found no value; expected one", name,
				       g->line, g->flag);
		if (r->nvals == 0 && g->nval > 0 && !strchr(g->val[0], '.') &&
		    r->act == PP_IMP_MAP)
			return pp_errf(err, PP_EINPUT, "%s:%d: %s: found the value \"%s\"; expected a "
				       "switch without one", name, g->line, g->flag, g->val[0]);
		for (size_t j = 0; j < i; j++) {
			const pp_imp_arg *h = &a->a[j];
			if (strcmp(h->flag, g->flag) || r->nvals == 0)
				continue;
			if (h->nval && g->nval && strcmp(h->val[0], g->val[0]) && r->act == PP_IMP_MAP)
				return pp_errf(err, PP_EINPUT, "%s:%d: %s: found \"%s\" here and \"%s\" "
					       "on line %d; expected one value", name, g->line, g->flag,
					       g->val[0], h->val[0], h->line);
		}
	}
	return 0;
}

cJSON *pp_imp_parent(cJSON *root, const char *key, const char **leaf)
{
	cJSON *o = root;
	const char *p = key;
	for (const char *dot; (dot = strchr(p, '.'));) {
		char part[64];
		snprintf(part, sizeof(part), "%.*s", (int)(dot - p), p);
		cJSON *c = cJSON_GetObjectItemCaseSensitive(o, part);
		if (!c)
			c = cJSON_AddObjectToObject(o, part);
		o = c;
		p = dot + 1;
	}
	*leaf = p;
	return o;
}

int pp_imp_int(const char *name, const char *flag, const char *v, int line, long long *out,
	       pp_err *err)
{
	char *end = NULL;
	long long x = v ? strtoll(v, &end, 10) : 0;
	if (!v || end == v || *end || x < 0)
		return pp_errf(err, PP_EINPUT, "%s:%d: %s: found \"%s\"; expected a whole number >= 0%s",
			       name, line, flag, v ? v : "", v && strchr(v, '$') ?
			       " (a shell variable podplan could not expand: set it in the text)" : "");
	*out = x;
	return 0;
}

static void set_key(cJSON *root, const char *key, cJSON *val)
{
	const char *leaf;
	cJSON *o = pp_imp_parent(root, key, &leaf);
	cJSON_DeleteItemFromObjectCaseSensitive(o, leaf);
	cJSON_AddItemToObject(o, leaf, val);
}

int pp_imp_apply(const char *name, const pp_imp_args *a, const pp_imp_rule *rules, size_t n,
		 cJSON *root, pp_err *err)
{
	for (size_t i = 0; i < a->n; i++) {
		const pp_imp_arg *g = &a->a[i];
		const pp_imp_rule *r = pp_imp_find(rules, n, g->flag);
		if (!r || r->act != PP_IMP_MAP || r->conv == PP_IMPV_SPECIAL)
			continue;
		const char *v = g->nval ? g->val[0] : NULL;
		switch (r->conv) {
		case PP_IMPV_INT: {
			long long x = 0;
			int rc = pp_imp_int(name, g->flag, v, g->line, &x, err);
			if (rc)
				return rc;
			set_key(root, r->key, cJSON_CreateNumber((double)x));
			break;
		}
		case PP_IMPV_NUM: {
			double x = 0;
			if (!v || pp_parse_decimal(v, &x))
				return pp_errf(err, PP_EINPUT, "%s:%d: %s: found \"%s\"; expected a number",
					       name, g->line, g->flag, v ? v : "");
			set_key(root, r->key, cJSON_CreateNumber(x));
			break;
		}
		case PP_IMPV_STR:
			set_key(root, r->key, cJSON_CreateString(v ? v : ""));
			break;
		case PP_IMPV_TRUE:
			set_key(root, r->key, cJSON_CreateTrue());
			break;
		case PP_IMPV_FALSE:
			set_key(root, r->key, cJSON_CreateFalse());
			break;
		case PP_IMPV_BOOL:
		case PP_IMPV_SPECIAL:
			break;
		}
	}
	return 0;
}

const char *pp_imp_name(cJSON *root, const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	char nm[128];
	snprintf(nm, sizeof(nm), "%s", base);
	char *dot = strrchr(nm, '.');
	if (dot)
		*dot = 0;
	cJSON_AddStringToObject(root, "name", nm);
	return base;
}
