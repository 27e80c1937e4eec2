#include "CFFmpeg.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

/* The sonames of the ABI the headers describe, e.g. libavformat.so.59 for FFmpeg 5.1. */
#define SC_SONAME(lib, major) "lib" lib ".so." AV_STRINGIFY(major)

/* Pointers typed from the headers' own prototypes: a wrapper that calls one with the wrong
   arguments does not compile. */
#define SC_FUNCTIONS(X)                                                                         \
    X(avutil, av_channel_layout_describe) X(avutil, av_dict_free) X(avutil, av_dict_get)        \
    X(avutil, av_dict_set) X(avutil, av_free) X(avutil, av_freep) X(avutil, av_malloc)          \
    X(avutil, av_get_pix_fmt_name) X(avutil, av_pix_fmt_desc_get) X(avutil, av_strerror)        \
    X(avutil, av_log_set_callback) X(avutil, av_aes_alloc) X(avutil, av_aes_init)               \
    X(avutil, av_aes_crypt)                                                                     \
    X(avcodec, av_get_bits_per_sample) X(avcodec, avcodec_descriptor_get)                       \
    X(avcodec, avcodec_get_name) X(avcodec, avcodec_profile_name)                               \
    X(avformat, av_guess_frame_rate) X(avformat, av_guess_sample_aspect_ratio)                  \
    X(avformat, av_stream_get_side_data) X(avformat, avformat_alloc_context)                    \
    X(avformat, avformat_close_input) X(avformat, avformat_find_stream_info)                    \
    X(avformat, avformat_free_context) X(avformat, avformat_index_get_entries_count)            \
    X(avformat, avformat_index_get_entry) X(avformat, avformat_open_input)                      \
    X(avformat, avio_alloc_context) X(avformat, avio_closep) X(avformat, avio_context_free)     \
    X(avformat, avio_open2) X(avformat, avio_read) X(avformat, avio_seek) X(avformat, avio_size)

#define SC_FIELD(lib, name) __typeof__(&name) name;
static struct { SC_FUNCTIONS(SC_FIELD) } api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[512];

static void load(void) {
    /* libavformat's own dependencies bring in the other two; each is opened by name so the
       symbols are looked up in the library that defines them. */
    void *avutil = dlopen(SC_SONAME("avutil", LIBAVUTIL_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    void *avcodec = avutil ? dlopen(SC_SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL) : NULL;
    void *avformat = avcodec ? dlopen(SC_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!avformat) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
#define SC_LOOKUP(lib, name)                                                                    \
    if (!(*(void **)&api.name = dlsym(lib, #name))) {                                           \
        snprintf(load_error, sizeof load_error, "lib%s has no symbol %s", #lib, #name);         \
        return;                                                                                 \
    }
    SC_FUNCTIONS(SC_LOOKUP)
    loaded = 1;
}

int sc_ffmpeg_load(void) {
    pthread_once(&once, load);
    return loaded ? 0 : -1;
}

const char *sc_ffmpeg_load_error(void) {
    return sc_ffmpeg_load() == 0 ? NULL : load_error;
}

#define SC_READY(failure) if (sc_ffmpeg_load() != 0) return failure
#define SC_READY_VOID if (sc_ffmpeg_load() != 0) return
#define SC_ENOSYS AVERROR(ENOSYS)

int sc_av_channel_layout_describe(const AVChannelLayout *layout, char *buf, size_t buf_size) { SC_READY(SC_ENOSYS); return api.av_channel_layout_describe(layout, buf, buf_size); }
void sc_av_dict_free(AVDictionary **m) { SC_READY_VOID; api.av_dict_free(m); }
AVDictionaryEntry *sc_av_dict_get(const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags) { SC_READY(NULL); return api.av_dict_get(m, key, prev, flags); }
int sc_av_dict_set(AVDictionary **pm, const char *key, const char *value, int flags) { SC_READY(SC_ENOSYS); return api.av_dict_set(pm, key, value, flags); }
void sc_av_free(void *ptr) { SC_READY_VOID; api.av_free(ptr); }
void sc_av_freep(void *ptr) { SC_READY_VOID; api.av_freep(ptr); }
void *sc_av_malloc(size_t size) { SC_READY(NULL); return api.av_malloc(size); }
const char *sc_av_get_pix_fmt_name(enum AVPixelFormat pix_fmt) { SC_READY(NULL); return api.av_get_pix_fmt_name(pix_fmt); }
const AVPixFmtDescriptor *sc_av_pix_fmt_desc_get(enum AVPixelFormat pix_fmt) { SC_READY(NULL); return api.av_pix_fmt_desc_get(pix_fmt); }
int sc_av_strerror(int errnum, char *errbuf, size_t errbuf_size) { SC_READY(SC_ENOSYS); return api.av_strerror(errnum, errbuf, errbuf_size); }
void sc_av_log_set_callback(void (*callback)(void *, int, const char *, va_list)) { SC_READY_VOID; api.av_log_set_callback(callback); }

int sc_av_aes_cbc_decrypt(const uint8_t key[16], uint8_t iv[16], uint8_t *dst, const uint8_t *src, int count) {
    SC_READY(SC_ENOSYS);
    struct AVAES *aes = api.av_aes_alloc();
    if (!aes) return AVERROR(ENOMEM);
    int status = api.av_aes_init(aes, key, 128, 1);
    if (status == 0) api.av_aes_crypt(aes, dst, src, count, iv, 1);
    api.av_free(aes);
    return status;
}

int sc_av_get_bits_per_sample(enum AVCodecID codec_id) { SC_READY(0); return api.av_get_bits_per_sample(codec_id); }
const AVCodecDescriptor *sc_avcodec_descriptor_get(enum AVCodecID id) { SC_READY(NULL); return api.avcodec_descriptor_get(id); }
const char *sc_avcodec_get_name(enum AVCodecID id) { SC_READY("unknown"); return api.avcodec_get_name(id); }
const char *sc_avcodec_profile_name(enum AVCodecID codec_id, int profile) { SC_READY(NULL); return api.avcodec_profile_name(codec_id, profile); }

AVRational sc_av_guess_frame_rate(AVFormatContext *ctx, AVStream *stream, AVFrame *frame) { SC_READY(((AVRational){0, 1})); return api.av_guess_frame_rate(ctx, stream, frame); }
AVRational sc_av_guess_sample_aspect_ratio(AVFormatContext *format, AVStream *stream, AVFrame *frame) { SC_READY(((AVRational){0, 1})); return api.av_guess_sample_aspect_ratio(format, stream, frame); }
uint8_t *sc_av_stream_get_side_data(const AVStream *stream, enum AVPacketSideDataType type, size_t *size) { SC_READY(NULL); return api.av_stream_get_side_data(stream, type, size); }
AVFormatContext *sc_avformat_alloc_context(void) { SC_READY(NULL); return api.avformat_alloc_context(); }
void sc_avformat_close_input(AVFormatContext **s) { SC_READY_VOID; api.avformat_close_input(s); }
int sc_avformat_find_stream_info(AVFormatContext *ic, AVDictionary **options) { SC_READY(SC_ENOSYS); return api.avformat_find_stream_info(ic, options); }
void sc_avformat_free_context(AVFormatContext *s) { SC_READY_VOID; api.avformat_free_context(s); }
int sc_avformat_index_get_entries_count(const AVStream *st) { SC_READY(0); return api.avformat_index_get_entries_count(st); }
const AVIndexEntry *sc_avformat_index_get_entry(AVStream *st, int idx) { SC_READY(NULL); return api.avformat_index_get_entry(st, idx); }
int sc_avformat_open_input(AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options) { SC_READY(SC_ENOSYS); return api.avformat_open_input(ps, url, fmt, options); }
AVIOContext *sc_avio_alloc_context(unsigned char *buffer, int buffer_size, int write_flag, void *opaque,
                                   int (*read_packet)(void *opaque, uint8_t *buf, int buf_size),
                                   int (*write_packet)(void *opaque, uint8_t *buf, int buf_size),
                                   int64_t (*seek)(void *opaque, int64_t offset, int whence)) {
    SC_READY(NULL);
    return api.avio_alloc_context(buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek);
}
int sc_avio_closep(AVIOContext **s) { SC_READY(SC_ENOSYS); return api.avio_closep(s); }
void sc_avio_context_free(AVIOContext **s) { SC_READY_VOID; api.avio_context_free(s); }
int sc_avio_open2(AVIOContext **s, const char *url, int flags, const AVIOInterruptCB *int_cb, AVDictionary **options) { SC_READY(SC_ENOSYS); return api.avio_open2(s, url, flags, int_cb, options); }
int sc_avio_read(AVIOContext *s, unsigned char *buf, int size) { SC_READY(SC_ENOSYS); return api.avio_read(s, buf, size); }
int64_t sc_avio_seek(AVIOContext *s, int64_t offset, int whence) { SC_READY(SC_ENOSYS); return api.avio_seek(s, offset, whence); }
int64_t sc_avio_size(AVIOContext *s) { SC_READY(SC_ENOSYS); return api.avio_size(s); }
