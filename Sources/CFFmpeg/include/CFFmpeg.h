#ifndef SEAMCHECK_CFFMPEG_H
#define SEAMCHECK_CFFMPEG_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/aes.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/error.h>
#include <libavutil/pixdesc.h>
#include <libavutil/rational.h>
#include <libavutil/samplefmt.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libswscale/swscale.h>

/* FFmpeg is loaded with dlopen on first use instead of linked: libavformat and libavcodec pull
   in ~130 shared libraries (codecs, TLS, SRT, ...), whose symbol binding cost every seamcheck
   process ~40 ms of start-up, for commands (discover, lint, inspect) that never probe. The
   headers give the types and inline helpers; only the sc_ functions below may be called. Each
   loads the libraries as needed and, if they cannot be, fails the way FFmpeg fails (NULL,
   AVERROR(ENOSYS)). */

/* 0 once libavutil, libavcodec and libavformat (the majors the headers describe) are loaded,
   -1 if they cannot be (sc_ffmpeg_load_error says why). Thread-safe, done once per process. */
int sc_ffmpeg_load(void);
const char *sc_ffmpeg_load_error(void);

/* 0 once libavfilter (loudness measurement) is loaded as well, -1 if it cannot be
   (sc_ffmpeg_load_error says why). Only the loudness meter needs it. */
int sc_avfilter_load(void);
const char *sc_avfilter_load_error(void);

/* libavutil */
AVFrame *sc_av_frame_alloc(void);
void sc_av_frame_free(AVFrame **frame);
void sc_av_frame_unref(AVFrame *frame);
const char *sc_av_get_sample_fmt_name(enum AVSampleFormat sample_fmt);
int sc_av_channel_layout_describe(const AVChannelLayout *layout, char *buf, size_t buf_size);
void sc_av_dict_free(AVDictionary **m);
AVDictionaryEntry *sc_av_dict_get(const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags);
int sc_av_dict_set(AVDictionary **pm, const char *key, const char *value, int flags);
void sc_av_free(void *ptr);
void sc_av_freep(void *ptr);
void *sc_av_malloc(size_t size);
const char *sc_av_get_pix_fmt_name(enum AVPixelFormat pix_fmt);
const AVPixFmtDescriptor *sc_av_pix_fmt_desc_get(enum AVPixelFormat pix_fmt);
int sc_av_strerror(int errnum, char *errbuf, size_t errbuf_size);
void sc_av_log_set_callback(void (*callback)(void *, int, const char *, va_list));
/* AES-128-CBC decryption of HLS segments (METHOD=AES-128): 0 on success, a negative AVERROR else.
   `count` is in 16-byte blocks; `iv` is updated as CBC goes. */
int sc_av_aes_cbc_decrypt(const uint8_t key[16], uint8_t iv[16], uint8_t *dst, const uint8_t *src, int count);

/* libavcodec */
int sc_av_get_bits_per_sample(enum AVCodecID codec_id);
const AVCodecDescriptor *sc_avcodec_descriptor_get(enum AVCodecID id);
const char *sc_avcodec_get_name(enum AVCodecID id);
const char *sc_avcodec_profile_name(enum AVCodecID codec_id, int profile);

AVPacket *sc_av_packet_alloc(void);
void sc_av_packet_free(AVPacket **pkt);
void sc_av_packet_unref(AVPacket *pkt);
AVCodecContext *sc_avcodec_alloc_context3(const AVCodec *codec);
const AVCodec *sc_avcodec_find_decoder(enum AVCodecID id);
void sc_avcodec_free_context(AVCodecContext **avctx);
int sc_avcodec_open2(AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options);
int sc_avcodec_parameters_to_context(AVCodecContext *codec, const AVCodecParameters *par);
int sc_avcodec_receive_frame(AVCodecContext *avctx, AVFrame *frame);
int sc_avcodec_send_packet(AVCodecContext *avctx, const AVPacket *avpkt);

/* libavfilter */
int sc_av_buffersink_get_frame(AVFilterContext *ctx, AVFrame *frame);
int sc_av_buffersrc_add_frame_flags(AVFilterContext *buffer_src, AVFrame *frame, int flags);
const AVFilter *sc_avfilter_get_by_name(const char *name);
int sc_avfilter_graph_config(AVFilterGraph *graphctx, void *log_ctx);
AVFilterGraph *sc_avfilter_graph_alloc(void);
int sc_avfilter_graph_create_filter(AVFilterContext **filt_ctx, const AVFilter *filt, const char *name, const char *args,
                                    void *opaque, AVFilterGraph *graph_ctx);
void sc_avfilter_graph_free(AVFilterGraph **graph);
int sc_avfilter_link(AVFilterContext *src, unsigned srcpad, AVFilterContext *dst, unsigned dstpad);

/* 0 once libswscale (capture analysis: frames scaled to small grey pictures) is loaded as well,
   -1 if it cannot be (sc_capture_load_error says why). libavdevice (x11grab, v4l2, ...) is loaded
   with it when it can be: without it only files and network inputs open. */
int sc_capture_load(void);
const char *sc_capture_load_error(void);
/* 1 when libavdevice was loaded and its input devices registered. */
int sc_avdevice_available(void);

/* libswscale */
struct SwsContext *sc_sws_getContext(int srcW, int srcH, enum AVPixelFormat srcFormat, int dstW, int dstH,
                                     enum AVPixelFormat dstFormat, int flags);
int sc_sws_scale(struct SwsContext *c, const uint8_t *const srcSlice[], const int srcStride[], int srcSliceY, int srcSliceH,
                 uint8_t *const dst[], const int dstStride[]);
void sc_sws_freeContext(struct SwsContext *c);

/* libavformat */
const AVInputFormat *sc_av_find_input_format(const char *short_name);
int sc_av_read_frame(AVFormatContext *s, AVPacket *pkt);
AVRational sc_av_guess_frame_rate(AVFormatContext *ctx, AVStream *stream, AVFrame *frame);
AVRational sc_av_guess_sample_aspect_ratio(AVFormatContext *format, AVStream *stream, AVFrame *frame);
uint8_t *sc_av_stream_get_side_data(const AVStream *stream, enum AVPacketSideDataType type, size_t *size);
AVFormatContext *sc_avformat_alloc_context(void);
void sc_avformat_close_input(AVFormatContext **s);
int sc_avformat_find_stream_info(AVFormatContext *ic, AVDictionary **options);
void sc_avformat_free_context(AVFormatContext *s);
int sc_avformat_index_get_entries_count(const AVStream *st);
const AVIndexEntry *sc_avformat_index_get_entry(AVStream *st, int idx);
int sc_avformat_open_input(AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options);
AVIOContext *sc_avio_alloc_context(unsigned char *buffer, int buffer_size, int write_flag, void *opaque,
                                   int (*read_packet)(void *opaque, uint8_t *buf, int buf_size),
                                   int (*write_packet)(void *opaque, uint8_t *buf, int buf_size),
                                   int64_t (*seek)(void *opaque, int64_t offset, int whence));
int sc_avio_closep(AVIOContext **s);
void sc_avio_context_free(AVIOContext **s);
int sc_avio_open2(AVIOContext **s, const char *url, int flags, const AVIOInterruptCB *int_cb, AVDictionary **options);
int sc_avio_read(AVIOContext *s, unsigned char *buf, int size);
int64_t sc_avio_seek(AVIOContext *s, int64_t offset, int whence);
int64_t sc_avio_size(AVIOContext *s);

/* Macros Swift cannot import, as functions. */
static inline int64_t sc_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int sc_averror(int e) { return AVERROR(e); }
static inline int sc_averror_eof(void) { return AVERROR_EOF; }
static inline int sc_averror_exit(void) { return AVERROR_EXIT; }
static inline int sc_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int sc_averror_http_not_found(void) { return AVERROR_HTTP_NOT_FOUND; }
static inline int sc_averror_eagain(void) { return AVERROR(EAGAIN); }

/* Largest byte offset any index entry of the stream reaches (pos + size), or -1 without an
   index. AVIndexEntry packs size in a bitfield, which Swift reads unreliably. */
static inline int64_t sc_index_max_end(AVStream *st) {
    int n = sc_avformat_index_get_entries_count(st);
    int64_t max_end = -1;
    for (int i = 0; i < n; i++) {
        const AVIndexEntry *e = sc_avformat_index_get_entry(st, i);
        if (e && e->pos >= 0) {
            int64_t end = e->pos + (int64_t)e->size;
            if (end > max_end) max_end = end;
        }
    }
    return max_end;
}

/* Dolby Vision configuration record of a stream, or NULL. */
static inline const AVDOVIDecoderConfigurationRecord *sc_dovi_config(const AVStream *st) {
    size_t size = 0;
    uint8_t *data = sc_av_stream_get_side_data(st, AV_PKT_DATA_DOVI_CONF, &size);
    if (!data || size < sizeof(AVDOVIDecoderConfigurationRecord)) return NULL;
    return (const AVDOVIDecoderConfigurationRecord *)data;
}

#endif
