#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* The soname of the ABI the headers describe (libcurl has kept .so.4 since 2006). */
#define SC_CURL_SONAME "libcurl.so.4"

static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[512];

#define SC_SYMBOL(field, name)                                                                  \
    if (!(*(void **)&api.field = dlsym(handle, #name))) {                                       \
        snprintf(load_error, sizeof load_error, "%s has no %s (libcurl older than 7.68?)",      \
                 SC_CURL_SONAME, #name);                                                         \
        return;                                                                                 \
    }

static void load(void) {
    void *handle = dlopen(SC_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
    SC_SYMBOL(global_init, curl_global_init)
    SC_SYMBOL(easy_init, curl_easy_init)
    SC_SYMBOL(easy_cleanup, curl_easy_cleanup)
    SC_SYMBOL(easy_strerror, curl_easy_strerror)
    SC_SYMBOL(easy_setopt, curl_easy_setopt)
    SC_SYMBOL(easy_getinfo, curl_easy_getinfo)
    SC_SYMBOL(slist_append, curl_slist_append)
    SC_SYMBOL(slist_free_all, curl_slist_free_all)
    SC_SYMBOL(multi_init, curl_multi_init)
    SC_SYMBOL(multi_cleanup, curl_multi_cleanup)
    SC_SYMBOL(multi_add_handle, curl_multi_add_handle)
    SC_SYMBOL(multi_remove_handle, curl_multi_remove_handle)
    SC_SYMBOL(multi_perform, curl_multi_perform)
    SC_SYMBOL(multi_poll, curl_multi_poll)
    SC_SYMBOL(multi_wakeup, curl_multi_wakeup)
    SC_SYMBOL(multi_info_read, curl_multi_info_read)
    CURLcode code = api.global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed: %s", api.easy_strerror(code));
        return;
    }
    loaded = 1;
}

int sc_curl_load(void) {
    pthread_once(&once, load);
    return loaded ? 0 : -1;
}

const char *sc_curl_load_error(void) {
    return sc_curl_load() == 0 ? NULL : load_error;
}

#define SC_READY(failure) if (sc_curl_load() != 0) return failure

CURL *sc_curl_easy_init(void) { SC_READY(NULL); return api.easy_init(); }
void sc_curl_easy_cleanup(CURL *easy) { if (sc_curl_load() == 0) api.easy_cleanup(easy); }
const char *sc_curl_easy_strerror(CURLcode code) { SC_READY("libcurl is not loaded"); return api.easy_strerror(code); }

CURLcode sc_curl_set_long(CURL *easy, CURLoption option, long value) { SC_READY(CURLE_FAILED_INIT); return api.easy_setopt(easy, option, value); }
CURLcode sc_curl_set_string(CURL *easy, CURLoption option, const char *value) { SC_READY(CURLE_FAILED_INIT); return api.easy_setopt(easy, option, value); }
CURLcode sc_curl_set_pointer(CURL *easy, CURLoption option, void *value) { SC_READY(CURLE_FAILED_INIT); return api.easy_setopt(easy, option, value); }
CURLcode sc_curl_set_list(CURL *easy, CURLoption option, struct curl_slist *value) { SC_READY(CURLE_FAILED_INIT); return api.easy_setopt(easy, option, value); }
CURLcode sc_curl_set_write(CURL *easy, CURLoption option, curl_write_callback callback) { SC_READY(CURLE_FAILED_INIT); return api.easy_setopt(easy, option, callback); }
CURLcode sc_curl_get_long(CURL *easy, CURLINFO info, long *value) { SC_READY(CURLE_FAILED_INIT); return api.easy_getinfo(easy, info, value); }
CURLcode sc_curl_get_offset(CURL *easy, CURLINFO info, curl_off_t *value) { SC_READY(CURLE_FAILED_INIT); return api.easy_getinfo(easy, info, value); }
CURLcode sc_curl_get_string(CURL *easy, CURLINFO info, char **value) { SC_READY(CURLE_FAILED_INIT); return api.easy_getinfo(easy, info, value); }

CURLcode sc_curl_restrict_to_http(CURL *easy) {
    SC_READY(CURLE_FAILED_INIT);
    if (api.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK) return CURLE_OK;
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    CURLcode code = api.easy_setopt(easy, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    if (code == CURLE_OK) code = api.easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#pragma clang diagnostic pop
    return code;
}

struct curl_slist *sc_curl_slist_append(struct curl_slist *list, const char *text) { SC_READY(NULL); return api.slist_append(list, text); }
void sc_curl_slist_free_all(struct curl_slist *list) { if (sc_curl_load() == 0) api.slist_free_all(list); }

CURLM *sc_curl_multi_init(void) { SC_READY(NULL); return api.multi_init(); }
CURLMcode sc_curl_multi_cleanup(CURLM *multi) { SC_READY(CURLM_INTERNAL_ERROR); return api.multi_cleanup(multi); }
CURLMcode sc_curl_multi_add_handle(CURLM *multi, CURL *easy) { SC_READY(CURLM_INTERNAL_ERROR); return api.multi_add_handle(multi, easy); }
CURLMcode sc_curl_multi_remove_handle(CURLM *multi, CURL *easy) { SC_READY(CURLM_INTERNAL_ERROR); return api.multi_remove_handle(multi, easy); }
CURLMcode sc_curl_multi_perform(CURLM *multi, int *running) { SC_READY(CURLM_INTERNAL_ERROR); return api.multi_perform(multi, running); }
CURLMcode sc_curl_multi_poll(CURLM *multi, int timeout_ms) { SC_READY(CURLM_INTERNAL_ERROR); return api.multi_poll(multi, NULL, 0, timeout_ms, NULL); }
CURLMcode sc_curl_multi_wakeup(CURLM *multi) { SC_READY(CURLM_INTERNAL_ERROR); return api.multi_wakeup(multi); }
CURLMsg *sc_curl_multi_info_read(CURLM *multi, int *queued) { SC_READY(NULL); return api.multi_info_read(multi, queued); }
