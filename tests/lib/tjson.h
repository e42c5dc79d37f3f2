/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading fusebpfctl's JSON in a guest suite (json-c): the suites that use
 * it link tests/lib/tjson.c and json-c (SRCS_ and LIBS_ of the suite).
 */
#ifndef FUSEBPF_TJSON_H
#define FUSEBPF_TJSON_H
#include <json-c/json.h>
#include <stdint.h>

/*
 * The objects of text, one a line (as 'fusebpfctl -j events' prints them),
 * whose "type" is type, as an array; NULL (and the line printed) when a
 * line is not JSON.
 */
json_object *json_lines(const char *text, const char *type);
/* o's key as a string, NULL when missing or null. */
const char *jstr(json_object *o, const char *key);
/* o's key as a number, -1 when missing or null. */
int64_t jint(json_object *o, const char *key);
#endif
