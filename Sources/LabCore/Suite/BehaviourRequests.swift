import Foundation

extension LabCase {
    /// Whether a request path (with or without its leading "/") asks for something of the case's
    /// interstitials: under `interstitialPrefix`; in a behaviour case, anything in the case folder but
    /// its multivariant playlist, primary media playlist and `primary/` (asset folders `ad-N/`, asset
    /// lists, and the failing URIs, which answer 404 and are still interstitial requests).
    public func isInterstitialRequest(_ path: String) -> Bool {
        let relative = path.hasPrefix("/") ? String(path.drop { $0 == "/" }) : path
        if kind == .behaviour {
            guard relative.hasPrefix(folder) else { return false }
            let rest = relative.dropFirst(folder.count)
            return !rest.isEmpty && rest != "master.m3u8" && rest != "primary.m3u8" && !rest.hasPrefix("primary/")
        }
        return interstitialPrefix.map { relative.hasPrefix($0) } ?? false
    }
}
