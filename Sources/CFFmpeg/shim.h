#ifndef SEAMCHECK_CFFMPEG_SHIM_H
#define SEAMCHECK_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/error.h>
#include <libavutil/pixdesc.h>
#include <libavutil/rational.h>

/* Macros Swift cannot import, as functions. */
static inline int64_t sc_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int sc_averror(int e) { return AVERROR(e); }
static inline int sc_averror_eof(void) { return AVERROR_EOF; }
static inline int sc_averror_exit(void) { return AVERROR_EXIT; }
static inline int sc_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int sc_averror_http_not_found(void) { return AVERROR_HTTP_NOT_FOUND; }

/* Largest byte offset any index entry of the stream reaches (pos + size), or -1 without an
   index. AVIndexEntry packs size in a bitfield, which Swift reads unreliably. */
static inline int64_t sc_index_max_end(AVStream *st) {
    int n = avformat_index_get_entries_count(st);
    int64_t max_end = -1;
    for (int i = 0; i < n; i++) {
        const AVIndexEntry *e = avformat_index_get_entry(st, i);
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
    uint8_t *data = av_stream_get_side_data(st, AV_PKT_DATA_DOVI_CONF, &size);
    if (!data || size < sizeof(AVDOVIDecoderConfigurationRecord)) return NULL;
    return (const AVDOVIDecoderConfigurationRecord *)data;
}

#endif
