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
    X(avutil, av_aes_crypt) X(avutil, av_frame_alloc) X(avutil, av_frame_free)                  \
    X(avutil, av_frame_unref) X(avutil, av_get_sample_fmt_name)                                 \
    X(avcodec, av_get_bits_per_sample) X(avcodec, avcodec_descriptor_get)                       \
    X(avcodec, av_packet_alloc) X(avcodec, av_packet_free) X(avcodec, av_packet_unref)          \
    X(avcodec, avcodec_alloc_context3) X(avcodec, avcodec_find_decoder)                         \
    X(avcodec, avcodec_free_context) X(avcodec, avcodec_open2)                                  \
    X(avcodec, avcodec_parameters_to_context) X(avcodec, avcodec_receive_frame)                 \
    X(avcodec, avcodec_send_packet) X(avformat, av_read_frame)                                  \
    X(avcodec, avcodec_get_name) X(avcodec, avcodec_profile_name)                               \
    X(avformat, av_guess_frame_rate) X(avformat, av_guess_sample_aspect_ratio)                  \
    X(avformat, av_stream_get_side_data) X(avformat, avformat_alloc_context)                    \
    X(avformat, avformat_close_input) X(avformat, avformat_find_stream_info)                    \
    X(avformat, avformat_free_context) X(avformat, avformat_index_get_entries_count)            \
    X(avformat, avformat_index_get_entry) X(avformat, avformat_open_input)                      \
    X(avformat, avio_alloc_context) X(avformat, avio_closep) X(avformat, avio_context_free)     \
    X(avformat, avio_open2) X(avformat, avio_read) X(avformat, avio_seek) X(avformat, avio_size)     \
    X(avformat, av_find_input_format)

/* libavfilter: loaded apart, only when loudness is measured. */
#define SC_FILTER_FUNCTIONS(X)                                                                  \
    X(avfilter, av_buffersink_get_frame) X(avfilter, av_buffersrc_add_frame_flags)              \
    X(avfilter, avfilter_get_by_name) X(avfilter, avfilter_graph_config)                        \
    X(avfilter, avfilter_graph_alloc) X(avfilter, avfilter_graph_create_filter)                 \
    X(avfilter, avfilter_graph_free) X(avfilter, avfilter_link)

/* libswscale: loaded apart, only when a capture is analysed. */
#define SC_CAPTURE_FUNCTIONS(X)                                                                 \
    X(swscale, sws_getContext) X(swscale, sws_scale) X(swscale, sws_freeContext)

#define SC_FIELD(lib, name) __typeof__(&name) name;
static struct { SC_FUNCTIONS(SC_FIELD) } api;
static struct { SC_FILTER_FUNCTIONS(SC_FIELD) } filter_api;
static struct { SC_CAPTURE_FUNCTIONS(SC_FIELD) } capture_api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[512];
static char filter_load_error[512];

/* Lazy binding: libavcodec and libavformat pull in about a hundred codec and protocol libraries,
   and binding every one of their functions at open (RTLD_NOW) cost a seventh of the load time for
   functions a probe never calls. Every function Seamcheck calls is looked up with dlsym at load,
   so a missing one is still an error there, not at its first call. */
#define SC_DLOPEN_MODE (RTLD_LAZY | RTLD_LOCAL)

static void load(void) {
    /* libavformat's own dependencies bring in the other two; each is opened by name so the
       symbols are looked up in the library that defines them. */
    void *avutil = dlopen(SC_SONAME("avutil", LIBAVUTIL_VERSION_MAJOR), SC_DLOPEN_MODE);
    void *avcodec = avutil ? dlopen(SC_SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR), SC_DLOPEN_MODE) : NULL;
    void *avformat = avcodec ? dlopen(SC_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR), SC_DLOPEN_MODE) : NULL;
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

const char *sc_avfilter_load_error(void);

static pthread_once_t filter_once = PTHREAD_ONCE_INIT;
static int filter_loaded;

static void load_filters(void) {
    if (sc_ffmpeg_load() != 0) return;
    void *avfilter = dlopen(SC_SONAME("avfilter", LIBAVFILTER_VERSION_MAJOR), SC_DLOPEN_MODE);
    if (!avfilter) {
        snprintf(filter_load_error, sizeof filter_load_error, "%s", dlerror());
        return;
    }
#define SC_FILTER_LOOKUP(lib, name)                                                             \
    if (!(*(void **)&filter_api.name = dlsym(lib, #name))) {                                    \
        snprintf(filter_load_error, sizeof filter_load_error, "lib%s has no symbol %s", #lib, #name); \
        return;                                                                                 \
    }
    SC_FILTER_FUNCTIONS(SC_FILTER_LOOKUP)
    filter_loaded = 1;
}

int sc_avfilter_load(void) {
    pthread_once(&filter_once, load_filters);
    return filter_loaded ? 0 : -1;
}

const char *sc_avfilter_load_error(void) {
    if (sc_avfilter_load() == 0) return NULL;
    return filter_load_error[0] ? filter_load_error : sc_ffmpeg_load_error();
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

AVFrame *sc_av_frame_alloc(void) { SC_READY(NULL); return api.av_frame_alloc(); }
void sc_av_frame_free(AVFrame **frame) { SC_READY_VOID; api.av_frame_free(frame); }
void sc_av_frame_unref(AVFrame *frame) { SC_READY_VOID; api.av_frame_unref(frame); }
const char *sc_av_get_sample_fmt_name(enum AVSampleFormat sample_fmt) { SC_READY(NULL); return api.av_get_sample_fmt_name(sample_fmt); }
AVPacket *sc_av_packet_alloc(void) { SC_READY(NULL); return api.av_packet_alloc(); }
void sc_av_packet_free(AVPacket **pkt) { SC_READY_VOID; api.av_packet_free(pkt); }
void sc_av_packet_unref(AVPacket *pkt) { SC_READY_VOID; api.av_packet_unref(pkt); }
AVCodecContext *sc_avcodec_alloc_context3(const AVCodec *codec) { SC_READY(NULL); return api.avcodec_alloc_context3(codec); }
const AVCodec *sc_avcodec_find_decoder(enum AVCodecID id) { SC_READY(NULL); return api.avcodec_find_decoder(id); }
void sc_avcodec_free_context(AVCodecContext **avctx) { SC_READY_VOID; api.avcodec_free_context(avctx); }
int sc_avcodec_open2(AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options) { SC_READY(SC_ENOSYS); return api.avcodec_open2(avctx, codec, options); }
int sc_avcodec_parameters_to_context(AVCodecContext *codec, const AVCodecParameters *par) { SC_READY(SC_ENOSYS); return api.avcodec_parameters_to_context(codec, par); }
int sc_avcodec_receive_frame(AVCodecContext *avctx, AVFrame *frame) { SC_READY(SC_ENOSYS); return api.avcodec_receive_frame(avctx, frame); }
int sc_avcodec_send_packet(AVCodecContext *avctx, const AVPacket *avpkt) { SC_READY(SC_ENOSYS); return api.avcodec_send_packet(avctx, avpkt); }
int sc_av_read_frame(AVFormatContext *s, AVPacket *pkt) { SC_READY(SC_ENOSYS); return api.av_read_frame(s, pkt); }

#define SC_FILTERS_READY(failure) if (sc_avfilter_load() != 0) return failure
int sc_av_buffersink_get_frame(AVFilterContext *ctx, AVFrame *frame) { SC_FILTERS_READY(SC_ENOSYS); return filter_api.av_buffersink_get_frame(ctx, frame); }
int sc_av_buffersrc_add_frame_flags(AVFilterContext *buffer_src, AVFrame *frame, int flags) { SC_FILTERS_READY(SC_ENOSYS); return filter_api.av_buffersrc_add_frame_flags(buffer_src, frame, flags); }
const AVFilter *sc_avfilter_get_by_name(const char *name) { SC_FILTERS_READY(NULL); return filter_api.avfilter_get_by_name(name); }
int sc_avfilter_graph_config(AVFilterGraph *graphctx, void *log_ctx) { SC_FILTERS_READY(SC_ENOSYS); return filter_api.avfilter_graph_config(graphctx, log_ctx); }
AVFilterGraph *sc_avfilter_graph_alloc(void) { SC_FILTERS_READY(NULL); return filter_api.avfilter_graph_alloc(); }
int sc_avfilter_graph_create_filter(AVFilterContext **filt_ctx, const AVFilter *filt, const char *name, const char *args,
                                    void *opaque, AVFilterGraph *graph_ctx) {
    SC_FILTERS_READY(SC_ENOSYS);
    return filter_api.avfilter_graph_create_filter(filt_ctx, filt, name, args, opaque, graph_ctx);
}
void sc_avfilter_graph_free(AVFilterGraph **graph) { if (sc_avfilter_load() != 0) return; filter_api.avfilter_graph_free(graph); }
int sc_avfilter_link(AVFilterContext *src, unsigned srcpad, AVFilterContext *dst, unsigned dstpad) { SC_FILTERS_READY(SC_ENOSYS); return filter_api.avfilter_link(src, srcpad, dst, dstpad); }

static pthread_once_t capture_once = PTHREAD_ONCE_INIT;
static int capture_loaded;
static int avdevice_loaded;
static char capture_load_error[512];

static void load_capture(void) {
    if (sc_ffmpeg_load() != 0) return;
    void *swscale = dlopen(SC_SONAME("swscale", LIBSWSCALE_VERSION_MAJOR), SC_DLOPEN_MODE);
    if (!swscale) {
        snprintf(capture_load_error, sizeof capture_load_error, "%s", dlerror());
        return;
    }
#define SC_CAPTURE_LOOKUP(lib, name)                                                            \
    if (!(*(void **)&capture_api.name = dlsym(lib, #name))) {                                   \
        snprintf(capture_load_error, sizeof capture_load_error, "lib%s has no symbol %s", #lib, #name); \
        return;                                                                                 \
    }
    SC_CAPTURE_FUNCTIONS(SC_CAPTURE_LOOKUP)
    capture_loaded = 1;
    /* libavdevice's major follows libavformat's (59 in FFmpeg 5.1); Debian ships no header for
       it in the packages Seamcheck builds with, and its one call needs none. */
    void *avdevice = dlopen(SC_SONAME("avdevice", LIBAVFORMAT_VERSION_MAJOR), SC_DLOPEN_MODE);
    void (*register_all)(void) = avdevice ? (void (*)(void))dlsym(avdevice, "avdevice_register_all") : NULL;
    if (register_all) {
        register_all();
        avdevice_loaded = 1;
    }
}

int sc_capture_load(void) {
    pthread_once(&capture_once, load_capture);
    return capture_loaded ? 0 : -1;
}

const char *sc_capture_load_error(void) {
    if (sc_capture_load() == 0) return NULL;
    return capture_load_error[0] ? capture_load_error : sc_ffmpeg_load_error();
}

int sc_avdevice_available(void) { return sc_capture_load() == 0 && avdevice_loaded; }

const AVInputFormat *sc_av_find_input_format(const char *short_name) { SC_READY(NULL); return api.av_find_input_format(short_name); }

#define SC_CAPTURE_READY(failure) if (sc_capture_load() != 0) return failure
struct SwsContext *sc_sws_getContext(int srcW, int srcH, enum AVPixelFormat srcFormat, int dstW, int dstH,
                                     enum AVPixelFormat dstFormat, int flags) {
    SC_CAPTURE_READY(NULL);
    return capture_api.sws_getContext(srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, NULL, NULL, NULL);
}
int sc_sws_scale(struct SwsContext *c, const uint8_t *const srcSlice[], const int srcStride[], int srcSliceY, int srcSliceH,
                 uint8_t *const dst[], const int dstStride[]) {
    SC_CAPTURE_READY(SC_ENOSYS);
    return capture_api.sws_scale(c, srcSlice, srcStride, srcSliceY, srcSliceH, dst, dstStride);
}
void sc_sws_freeContext(struct SwsContext *c) { if (sc_capture_load() != 0) return; capture_api.sws_freeContext(c); }
