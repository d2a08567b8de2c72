/* SPDX-License-Identifier: BSD-2-Clause */
/* notes.c -- what this build of lockrun may load, and when (notes.h).
 *
 * The same facts go into the binary as an ELF note, in the format systemd
 * defined for its optional libraries (".note.dlopen": owner "FDO", type
 * 0x407c0c0a, a JSON array of {feature, description, priority, soname}),
 * so that packaging tools can turn them into Recommends without reading
 * the source. */
#include <stdint.h>
#include <stdio.h>

#include "backend/notes.h"

#ifdef LR_TLS
#ifdef LR_TLS_LINKED
#define TLS_LOADS	"linked in"
#define TLS_JSON	""
#else
#define TLS_LOADS	"loads " NOTES_SSL " when a URL is rediss://"
#define TLS_JSON	"{\"feature\":\"tls\",\"description\":\"rediss:// URLs\"," \
	"\"priority\":\"recommended\",\"soname\":[\"" NOTES_SSL "\"]}"
#endif
#else
#define TLS_LOADS	"not built (TLS=no)"
#define TLS_JSON	""
#endif

#ifdef LR_SQL
#define SQL_JSON	"{\"feature\":\"postgres\",\"description\":\"postgres:// URLs\"," \
	"\"priority\":\"suggested\",\"soname\":[\"" NOTES_PQ "\"]}," \
	"{\"feature\":\"mysql\",\"description\":\"mysql:// URLs\"," \
	"\"priority\":\"suggested\",\"soname\":[\"" NOTES_MARIADB "\"]}"
#else
#define SQL_JSON	""
#endif

#if defined(LR_TLS) && !defined(LR_TLS_LINKED) && defined(LR_SQL)
#define LIBS_JSON	TLS_JSON "," SQL_JSON
#else
#define LIBS_JSON	TLS_JSON SQL_JSON
#endif

#ifdef LR_WEB
#define WEB_JSON	"{\"feature\":\"http\",\"description\":\"lockrun cron --listen\"," \
	"\"priority\":\"suggested\",\"soname\":[\"" NOTES_MHD "\"]}"
#if (defined(LR_TLS) && !defined(LR_TLS_LINKED)) || defined(LR_SQL)
#define NOTE_JSON	"[" LIBS_JSON "," WEB_JSON "]"
#else
#define NOTE_JSON	"[" WEB_JSON "]"
#endif
#else
#define NOTE_JSON	"[" LIBS_JSON "]"
#endif

/* An ELF note: the sizes, the type, the owner's name and the descriptor,
 * each padded to 4 bytes. */
static const struct {
	uint32_t	namesz, descsz, type;
	char		name[4];
	char		desc[(sizeof(NOTE_JSON) + 3) & ~3u];
} dlopen_note __attribute__((used, section(".note.dlopen"), aligned(4))) = {
	4, sizeof(NOTE_JSON), 0x407c0c0a, "FDO", NOTE_JSON,
};

void
notes_version(FILE *fp, const char *version)
{
	fprintf(fp, "lockrun %s\n", version);
	fprintf(fp, "TLS (rediss://): %s\n", TLS_LOADS);
#ifdef LR_SQL
	fprintf(fp, "PostgreSQL (postgres://): loads " NOTES_PQ " when a URL needs it\n");
	fprintf(fp, "MySQL/MariaDB (mysql://): loads " NOTES_MARIADB " when a URL needs it\n");
#else
	fprintf(fp, "PostgreSQL, MySQL/MariaDB: not built (SQL=no)\n");
#endif
#ifdef LR_WEB
	fprintf(fp, "HTTP (cron --listen): loads " NOTES_MHD " when asked to listen\n");
#else
	fprintf(fp, "HTTP (cron --listen): not built (WEB=no)\n");
#endif
}
