/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_rreader.c -- a server's replies to lockrun's bounded reader, fed
 * as a connection delivers them: in pieces (the first byte of the input
 * says how long each is), each followed by the bound check and by taking
 * every whole reply, as rlink.c does. */
#include <hiredis/hiredis.h>

#include "backend/redis/rreader.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rreader_bounds b = { 0 };
	struct redisReader *r;
	size_t piece;
	int failed = 0;

	if (size == 0 || (r = rreader_new(&b)) == NULL)
		return 0;
	piece = (size_t)data[0] + 1;
	for (size_t off = 1; off < size && !failed; off += piece) {
		size_t n = size - off < piece ? size - off : piece;
		void *reply;

		if (redisReaderFeed(r, (const char *)data + off, n) != REDIS_OK ||
		    rreader_check(r, &b) != 0)
			break;
		while (!failed) {
			reply = NULL;
			if (redisReaderGetReply(r, &reply) != REDIS_OK)
				failed = 1;
			else if (reply == NULL)
				break;
			else {
				freeReplyObject(reply);
				rreader_taken(&b);
			}
		}
	}
	redisReaderFree(r);
	return 0;
}
