/* imppy.c - a Python recipe file read as statements (impint.h), far enough
 * for Megatron-Bridge's recipe modules: logical lines (brackets and
 * backslashes join physical lines, comments dropped, strings kept whole,
 * triple-quoted ones too), each with its first line and its indentation;
 * functions found by their `def` at column 0, module constants by
 * `NAME = value` or `NAME: type = value` there. It evaluates nothing: the
 * importer reads the statements it understands and refuses the others. */
#include "input/impint.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static void push(pp_py *p, pp_sb *sb, int line, int indent)
{
	/* trim the statement; an empty one (a blank or comment line) is dropped */
	size_t a = 0, b = sb->len;
	while (a < b && isspace((unsigned char)sb->buf[a]))
		a++;
	while (b > a && isspace((unsigned char)sb->buf[b - 1]))
		b--;
	if (b > a) {
		if (p->n == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 256;
			p->s = pp_xrealloc(p->s, p->cap * sizeof(p->s[0]));
		}
		char *t = pp_xmalloc(b - a + 1);
		memcpy(t, sb->buf + a, b - a);
		t[b - a] = 0;
		p->s[p->n++] = (pp_py_stmt){t, line, indent};
	}
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = 0;
}

static void addq(pp_sb *sb, char q, bool triple)
{
	if (triple)
		pp_sb_addf(sb, "%c%c%c", q, q, q);
	else
		pp_sb_addf(sb, "%c", q);
}

void pp_py_read(const char *text, pp_py *out)
{
	memset(out, 0, sizeof(*out));
	pp_sb sb = {0};
	int line = 1, start = 1, indent = 0, depth = 0;
	bool at_start = true; /* no character of the statement seen yet */
	char quote = 0;       /* inside a string: its quote character */
	bool triple = false;
	for (const char *c = text; *c; c++) {
		if (quote) {
			if (*c == '\\' && c[1]) {
				pp_sb_addf(&sb, "%c%c", c[0], c[1]);
				if (c[1] == '\n')
					line++;
				c++;
				continue;
			}
			if (*c == '\n')
				line++;
			if (*c == quote && (!triple || (c[1] == quote && c[2] == quote))) {
				addq(&sb, quote, triple);
				c += triple ? 2 : 0;
				quote = 0;
				continue;
			}
			/* a line break inside a one-line string ends it (a syntax error
			 * Python would report; here it keeps a bad file bounded) */
			if (*c == '\n' && !triple)
				quote = 0;
			pp_sb_addf(&sb, "%c", *c == '\n' ? ' ' : *c);
			continue;
		}
		if (at_start && (*c == ' ' || *c == '\t')) {
			indent += *c == '\t' ? 8 : 1;
			continue;
		}
		if (*c == '#') {
			while (c[1] && c[1] != '\n')
				c++;
			continue;
		}
		if (*c == '\\' && c[1] == '\n') {
			pp_sb_adds(&sb, " ");
			line++;
			c++;
			continue;
		}
		if (*c == '\n') {
			line++;
			if (depth > 0) {
				pp_sb_adds(&sb, " ");
				continue;
			}
			if (!at_start)
				push(out, &sb, start, indent);
			at_start = true;
			indent = 0;
			continue;
		}
		if (at_start) {
			at_start = false;
			start = line;
		}
		if (*c == '"' || *c == '\'') {
			quote = *c;
			triple = c[1] == *c && c[2] == *c;
			addq(&sb, *c, triple);
			c += triple ? 2 : 0;
			continue;
		}
		if (strchr("([{", *c))
			depth++;
		else if (strchr(")]}", *c) && depth > 0)
			depth--;
		pp_sb_addf(&sb, "%c", *c);
	}
	if (!at_start)
		push(out, &sb, start, indent);
	pp_sb_release(&sb);
}

void pp_py_release(pp_py *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->s[i].text);
	free(p->s);
	memset(p, 0, sizeof(*p));
}

/* The name a `def` statement defines, into out; false when s is none. */
static bool def_name(const char *s, char *out, size_t n)
{
	if (strncmp(s, "def ", 4))
		return false;
	s += 4;
	while (*s == ' ')
		s++;
	size_t k = 0;
	while ((isalnum((unsigned char)s[k]) || s[k] == '_') && k + 1 < n) {
		out[k] = s[k];
		k++;
	}
	out[k] = 0;
	return k > 0;
}

int pp_py_function(const pp_py *p, const char *name, size_t *first, size_t *end)
{
	char nm[128];
	for (size_t i = 0; i < p->n; i++) {
		if (p->s[i].indent || !def_name(p->s[i].text, nm, sizeof(nm)) || strcmp(nm, name))
			continue;
		size_t j = i + 1;
		while (j < p->n && p->s[j].indent > 0)
			j++;
		*first = i + 1;
		*end = j;
		return (int)i;
	}
	return -1;
}

size_t pp_py_functions(const pp_py *p, const char **names, char (*buf)[128], size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < p->n && k < max; i++)
		if (!p->s[i].indent && def_name(p->s[i].text, buf[k], sizeof(buf[k]))) {
			names[k] = buf[k];
			k++;
		}
	return k;
}

const char *pp_py_constant(const pp_py *p, const char *name)
{
	size_t n = strlen(name);
	const char *v = NULL;
	for (size_t i = 0; i < p->n; i++) {
		const char *s = p->s[i].text;
		if (p->s[i].indent || strncmp(s, name, n))
			continue;
		s += n;
		while (*s == ' ')
			s++;
		if (*s == ':') { /* an annotation: NAME: int = value */
			s = strchr(s, '=');
			if (!s)
				continue;
		}
		if (*s != '=' || s[1] == '=')
			continue;
		s++;
		while (*s == ' ')
			s++;
		v = s; /* the last assignment at module level wins */
	}
	return v;
}
