/*
 * impint.h - private to the importers (impargs.c: the launch text read as
 * a shell reads it, far enough for launch scripts; impmegatron.c,
 * impvllm.c: each importer's rule table and scenario; impmap.c: the
 * mapping table printed from the rules).
 */
#ifndef PP_IMPINT_H
#define PP_IMPINT_H

#include "input/import.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
	PP_IMP_MAP,    /* becomes a scenario key */
	PP_IMP_IGNORE, /* accepted: cannot change the step or iteration (why says how) */
	PP_IMP_REFUSE  /* changes the step and podplan does not model it: exit 2 */
} pp_imp_action;

/* How a mapped argument's value is written. */
typedef enum {
	PP_IMPV_INT,   /* an integer >= 0 */
	PP_IMPV_NUM,   /* a decimal number */
	PP_IMPV_STR,   /* a string, as given */
	PP_IMPV_TRUE,  /* a switch: the key set true */
	PP_IMPV_FALSE, /* a switch: the key set false */
	PP_IMPV_BOOL,  /* a recipe's True or False: the key set to it */
	PP_IMPV_SPECIAL /* read by the importer's own code (why says how) */
} pp_imp_conv;

/* One argument's rule. name is the long form with dashes ("--num-layers");
 * an argument given with underscores ("--tensor_parallel_size", as
 * argparse and torchrun accept) reads as its dashed form. */
typedef struct pp_imp_rule {
	const char *name;
	int nvals;          /* values it takes: 0 (a switch) or 1 */
	pp_imp_action act;
	pp_imp_conv conv;
	const char *key;    /* the scenario key (PP_IMP_MAP), dotted ("model.num_layers") */
	const char *why;    /* the reason (ignore, refuse) or the conversion (map) */
} pp_imp_rule;

/* One argument as the text gives it. */
#define PP_IMP_VALS 4
typedef struct pp_imp_arg {
	char flag[64];            /* dashed, without "=value" */
	char *val[PP_IMP_VALS];   /* owned */
	int nval;
	int line;                 /* 1-based line of the text */
} pp_imp_arg;

typedef struct pp_imp_args {
	pp_imp_arg *a;
	size_t n, cap;
	char *positional[4];      /* a command's operands (vllm serve's model), owned */
	int npositional;
} pp_imp_args;

/* The `--` arguments of a whole launch script (Megatron: shell variables
 * assigned in it expanded, `${N:-default}` to its default, comments and
 * `echo` lines skipped, line continuations joined). */
void pp_imp_read_script(const char *text, pp_imp_args *out);
/* The arguments of the first command line of text whose words start with
 * cmd ("vllm serve"; short options such as -tp count too): 0, or -1 when
 * text has no such line. *line: where it starts. */
int pp_imp_read_command(const char *text, const char *cmd, pp_imp_args *out, int *line);
void pp_imp_args_release(pp_imp_args *a);

/* The rule for flag in rules[0..n), or NULL. */
const pp_imp_rule *pp_imp_find(const pp_imp_rule *rules, size_t n, const char *flag);
/* Check every argument of a against rules: an unknown one (did-you-mean
 * from the table) or a refused one is PP_EINPUT naming name:line and the
 * argument; a switch given a value or a valued argument given none, too;
 * the same argument twice with different values, too. what names the
 * importer in messages ("Megatron-LM"). */
int pp_imp_check(const char *name, const char *what, const pp_imp_args *a,
		 const pp_imp_rule *rules, size_t n, pp_err *err);
/* The last value of flag in a (NULL when absent or a switch); *line its line. */
const char *pp_imp_get(const pp_imp_args *a, const char *flag, int *line);
bool pp_imp_has(const pp_imp_args *a, const char *flag);
/* Write every PP_IMP_MAP argument of a whose conversion is not
 * PP_IMPV_SPECIAL into root at its dotted key. */
int pp_imp_apply(const char *name, const pp_imp_args *a, const pp_imp_rule *rules, size_t n,
		 cJSON *root, pp_err *err);
/* root's object at dotted key's parent, created as needed; *leaf: the last part. */
cJSON *pp_imp_parent(cJSON *root, const char *key, const char **leaf);
/* An integer value of flag (name:line in the message): 0 or PP_EINPUT. */
int pp_imp_int(const char *name, const char *flag, const char *v, int line, long long *out,
	       pp_err *err);

extern const pp_imp_rule pp_imp_megatron_rules[];
extern const size_t pp_imp_megatron_nrules;
extern const pp_imp_rule pp_imp_vllm_rules[];
extern const size_t pp_imp_vllm_nrules;
extern const pp_imp_rule pp_imp_bench_rules[];
extern const size_t pp_imp_bench_nrules;

extern const pp_imp_rule pp_imp_bridge_rules[];
extern const size_t pp_imp_bridge_nrules;

/* A Python recipe module read as statements (imppy.c): logical lines
 * (brackets and backslashes join physical lines; comments dropped; string
 * literals kept whole, triple-quoted ones too), each with its first line
 * (1-based) and its indentation in columns. Nothing is evaluated. */
typedef struct pp_py_stmt {
	char *text; /* owned; physical line breaks inside it are spaces */
	int line;
	int indent;
} pp_py_stmt;

typedef struct pp_py {
	pp_py_stmt *s;
	size_t n, cap;
} pp_py;

void pp_py_read(const char *text, pp_py *out);
void pp_py_release(pp_py *p);
/* Function name's body (defined at column 0): its statements are
 * p->s[*first .. *end); returns the index of its `def`, or -1. */
int pp_py_function(const pp_py *p, const char *name, size_t *first, size_t *end);
/* The names of the functions defined at column 0, at most max, into
 * names (pointing into buf); returns how many. */
size_t pp_py_functions(const pp_py *p, const char **names, char (*buf)[128], size_t max);
/* The expression a module-level `NAME = value` (or `NAME: type = value`)
 * assigns, the last one; NULL when none. Points into p. */
const char *pp_py_constant(const pp_py *p, const char *name);

/* A Megatron-Bridge recipe as read (imprecipe.c): its assignments as
 * arguments (flag "section.key", e.g. "model.seq_length"; the value
 * normalised: a string literal in double quotes, a module constant
 * replaced by its value, numbers, True, False, None and other expressions
 * as written; line: the statement's), the model's repository. */
typedef struct pp_bridge_recipe {
	const char *file;  /* for messages */
	const pp_py *py;
	pp_imp_args a;     /* owned: pp_imp_args_release */
	char repo[160];    /* AutoBridge.from_hf_pretrained's repository; "" none */
	int repo_line;
	int common_line;   /* the line of cfg = _pretrain_common(); 0: none */
} pp_bridge_recipe;

/* Read recipe function func of r->py (and the recipes it starts from) into
 * r->a: 0, or PP_EINPUT naming file:line and the statement podplan does not
 * read. */
int pp_bridge_read(pp_bridge_recipe *r, const char *func, pp_err *err);
/* Whether normalised value v is the string literal s. */
bool pp_bridge_is_str(const char *v, const char *s);
/* Whether normalised value v leaves a feature off (False, None, 0, "none", []). */
bool pp_bridge_is_off(const char *v);

/* Name the scenario root after the imported file (its base name without
 * the extension); returns the base name, inside name. */
const char *pp_imp_name(cJSON *root, const char *name);

#endif
