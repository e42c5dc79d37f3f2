// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "tjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_object *json_lines(const char *text, const char *type)
{
	json_object *arr = json_object_new_array();
	char *save = NULL, *copy = strdup(text);

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		json_object *o = json_tokener_parse(l), *t;

		if (!o) {
			printf("not JSON: %s\n", l);
			json_object_put(arr);
			arr = NULL;
			break;
		}
		if (json_object_object_get_ex(o, "type", &t) && !strcmp(json_object_get_string(t), type))
			json_object_array_add(arr, o);
		else
			json_object_put(o);
	}
	free(copy);
	return arr;
}

const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : NULL;
}

int64_t jint(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_int64(v) : -1;
}
