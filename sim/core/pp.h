/*
 * pp.h - what every podplan module shares: error codes, the error buffer,
 * unit constants.
 *
 * Contract: a function that can fail returns 0 or a negative PP_E* code and,
 * on failure, writes a one-line human message into a pp_err the caller owns.
 * PP_EINPUT means "the user's input is wrong" (exit status 2 at the CLI);
 * everything else is an environment or internal failure (exit status 1).
 */
#ifndef PP_H
#define PP_H

#include <stddef.h>
#include <stdint.h>

#define PP_VERSION "0.1.0"

enum {
	PP_OK = 0,
	PP_EINPUT = -2,   /* bad user input: file, JSON path, found, expected */
	PP_EIO = -3,      /* a file could not be read or written */
	PP_ENOMEM = -4,
	PP_EDB = -5,      /* SQLite failure */
	PP_ENOTFOUND = -6,/* a named thing (run, profile, id) does not exist */
	PP_EINTERNAL = -7
};

#define PP_ERR_MAX 2048

typedef struct pp_err {
	int code;
	char msg[PP_ERR_MAX];
} pp_err;

/* Fill err (may be NULL) and return code. printf-style. The message stays
 * one line of text: a control byte in it (a newline or an ESC sequence from
 * a user's name or path) is written as \xNN (util.h, pp_sb_add_tty). */
int pp_errf(pp_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Exit status the CLI uses for an error code: 2 for PP_EINPUT, else 1. */
int pp_exit_status(int code);

/* Units: SI inside the program, convert at the edges only. */
#define PP_GIB (1024.0 * 1024.0 * 1024.0)
#define PP_GB 1e9
#define PP_TERA 1e12
#define PP_NS_PER_S 1000000000LL

#define PP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
