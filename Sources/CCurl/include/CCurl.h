#ifndef SEAMCHECK_CCURL_H
#define SEAMCHECK_CCURL_H

/* libcurl, loaded with dlopen on first use instead of linked: libcurl and the ~30 libraries it
   pulls in cost every seamcheck process ~10 ms of start-up, and most commands (discover, probe
   of local files, lint of local playlists) never fetch over http. The header gives the types;
   only the sc_curl_ functions below may be called. */
#include <curl/curl.h>

/* 0 once libcurl is loaded and initialised, -1 if it cannot be (sc_curl_load_error says why).
   Thread-safe; the work is done once per process. Every function below loads it as needed and
   fails the way libcurl itself fails (NULL, CURLE_FAILED_INIT, CURLM_INTERNAL_ERROR) if it
   cannot. */
int sc_curl_load(void);
const char *sc_curl_load_error(void);

CURL *sc_curl_easy_init(void);
void sc_curl_easy_cleanup(CURL *easy);
const char *sc_curl_easy_strerror(CURLcode code);
/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
   wrapper per argument type. */
CURLcode sc_curl_set_long(CURL *easy, CURLoption option, long value);
CURLcode sc_curl_set_string(CURL *easy, CURLoption option, const char *value);
CURLcode sc_curl_set_pointer(CURL *easy, CURLoption option, void *value);
CURLcode sc_curl_set_list(CURL *easy, CURLoption option, struct curl_slist *value);
CURLcode sc_curl_set_write(CURL *easy, CURLoption option, curl_write_callback callback);
CURLcode sc_curl_get_long(CURL *easy, CURLINFO info, long *value);
CURLcode sc_curl_get_offset(CURL *easy, CURLINFO info, curl_off_t *value);
CURLcode sc_curl_get_string(CURL *easy, CURLINFO info, char **value);

/* Limits the handle (and its redirects) to http and https: CURLOPT_PROTOCOLS_STR from 7.85,
   the older bit mask before. */
CURLcode sc_curl_restrict_to_http(CURL *easy);

struct curl_slist *sc_curl_slist_append(struct curl_slist *list, const char *text);
void sc_curl_slist_free_all(struct curl_slist *list);

CURLM *sc_curl_multi_init(void);
CURLMcode sc_curl_multi_cleanup(CURLM *multi);
CURLMcode sc_curl_multi_add_handle(CURLM *multi, CURL *easy);
CURLMcode sc_curl_multi_remove_handle(CURLM *multi, CURL *easy);
CURLMcode sc_curl_multi_perform(CURLM *multi, int *running);
CURLMcode sc_curl_multi_poll(CURLM *multi, int timeout_ms);
CURLMcode sc_curl_multi_wakeup(CURLM *multi);
CURLMsg *sc_curl_multi_info_read(CURLM *multi, int *queued);

/* CURLMsg.data is a union; Swift reads it unreliably. */
static inline CURLcode sc_curl_msg_result(const CURLMsg *m) { return m->data.result; }
static inline int sc_curl_error_size(void) { return CURL_ERROR_SIZE; }

#endif
