#ifndef SEAMCHECK_CCURL_SHIM_H
#define SEAMCHECK_CCURL_SHIM_H

#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
   wrapper per argument type. */
static inline CURLcode sc_curl_set_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sc_curl_set_offset(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sc_curl_set_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sc_curl_set_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sc_curl_set_list(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sc_curl_set_write(CURL *h, CURLoption o, curl_write_callback f) { return curl_easy_setopt(h, o, f); }

static inline CURLcode sc_curl_get_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode sc_curl_get_offset(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode sc_curl_get_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }

/* CURLMsg.data is a union; Swift reads it unreliably. */
static inline CURLcode sc_curl_msg_result(const CURLMsg *m) { return m->data.result; }

static inline int sc_curl_error_size(void) { return CURL_ERROR_SIZE; }

#endif
