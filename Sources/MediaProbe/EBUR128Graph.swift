import CFFmpeg
import Foundation

/// One measurement's abuffer -> ebur128 -> abuffersink graph (libavfilter), set up for the
/// format of the first decoded frame. Keeps the last integrated value the filter attaches to
/// its frames (`lavfi.r128.I`, three decimals). C types stay in this file and LoudnessMeter.
final class EBUR128Graph {
    let sampleRate: Int
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    private var filtered: UnsafeMutablePointer<AVFrame>?
    private(set) var integrated: Double?

    init(format frame: UnsafeMutablePointer<AVFrame>, label: String) throws(ProbeError) {
        var layout = frame.pointee.ch_layout
        var layoutText = [CChar](repeating: 0, count: 128)
        _ = layoutText.withUnsafeMutableBufferPointer { sc_av_channel_layout_describe(&layout, $0.baseAddress, $0.count) }
        let format = optionalString(sc_av_get_sample_fmt_name(AVSampleFormat(rawValue: frame.pointee.format))) ?? "fltp"
        let rate = Int(frame.pointee.sample_rate)
        let args = "time_base=1/\(rate):sample_rate=\(rate):sample_fmt=\(format):channel_layout=\(decodeCString(layoutText))"
        sampleRate = rate
        graph = sc_avfilter_graph_alloc()
        // No slice threads: ebur128 does not use them, and a graph would start one per core.
        graph?.pointee.nb_threads = 1
        filtered = sc_av_frame_alloc()
        var source: UnsafeMutablePointer<AVFilterContext>?, meter: UnsafeMutablePointer<AVFilterContext>?
        var sink: UnsafeMutablePointer<AVFilterContext>?
        guard let graph, filtered != nil, rate > 0,
              sc_avfilter_graph_create_filter(&source, sc_avfilter_get_by_name("abuffer"), "in", args, nil, graph) >= 0,
              sc_avfilter_graph_create_filter(&meter, sc_avfilter_get_by_name("ebur128"), "r128", "metadata=1", nil, graph) >= 0,
              sc_avfilter_graph_create_filter(&sink, sc_avfilter_get_by_name("abuffersink"), "out", nil, nil, graph) >= 0,
              sc_avfilter_link(source, 0, meter, 0) >= 0, sc_avfilter_link(meter, 0, sink, 0) >= 0,
              sc_avfilter_graph_config(graph, nil) >= 0, let source, let sink
        else {
            sc_avfilter_graph_free(&graph)
            sc_av_frame_free(&filtered)
            throw .notMedia(label, reason: "the ebur128 filter graph cannot be set up for \(args)")
        }
        self.source = source
        self.sink = sink
    }

    deinit {
        sc_avfilter_graph_free(&graph)
        sc_av_frame_free(&filtered)
    }

    /// Feeds one decoded frame (the caller keeps and unreferences it).
    func add(_ frame: UnsafeMutablePointer<AVFrame>) {
        _ = sc_av_buffersrc_add_frame_flags(source, frame, 0)
        drain()
    }

    /// Ends the stream; the integrated loudness of everything fed, if the filter gave one.
    func finish() -> Double? {
        _ = sc_av_buffersrc_add_frame_flags(source, nil, 0)
        drain()
        return integrated
    }

    private func drain() {
        guard let filtered else { return }
        while sc_av_buffersink_get_frame(sink, filtered) >= 0 {
            if let entry = sc_av_dict_get(filtered.pointee.metadata, "lavfi.r128.I", nil, 0),
               let text = optionalString(entry.pointee.value), let value = Double(text) {
                integrated = value
            }
            sc_av_frame_unref(filtered)
        }
    }
}
