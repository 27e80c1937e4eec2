import Foundation
import HLS

extension DateRangeSpecRules {
    static let scte35Attributes: Set<String> = ["SCTE35-CMD", "SCTE35-OUT", "SCTE35-IN"]

    /// Peers' tests (m3u8's, Media3's) show SCTE35 values read only as hexadecimal-sequences:
    /// before this rule, `SCTE35-OUT=0xZZ` was dropped without a word.
    static let hexadecimalInvalid = SpecRule(
        SpecRule.describe("daterange-hexadecimal-invalid", "SCTE35 or client attribute that is not a valid hexadecimal-sequence", severity: .error,
                          rationale: "SCTE35-CMD, SCTE35-OUT and SCTE35-IN must be hexadecimal-sequences (0x followed by hexadecimal digits), and a client attribute written 0x... is one too, checked after variable substitution (rfc8216bis 4.3 allows {$NAME} in hexadecimal-sequences: 0x{$id} with id defined as ZZ is 0xZZ). A value that is quoted, or has a character outside 0-9 A-F after 0x, is not: the SCTE-35 splice information it was meant to carry is lost.",
                          source: source + "; rfc8216bis 4.3"),
        examples: [
            SpecExample("SCTE35-OUT with a Z", triggers: true, playlist: P.media(
                "#EXT-X-DATERANGE:ID=\"s1\",START-DATE=\"2020-01-02T21:55:44Z\",PLANNED-DURATION=15,SCTE35-OUT=0xFC30ZZ")),
            SpecExample("SCTE35-CMD quoted", triggers: true, playlist: P.media(
                "#EXT-X-DATERANGE:ID=\"s1\",START-DATE=\"2020-01-02T21:55:44Z\",SCTE35-CMD=\"0xFC3025\"")),
            SpecExample("X-COM-EXAMPLE-BEACON=0x12G4", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",X-COM-EXAMPLE-BEACON=0x12G4"))),
            SpecExample("0x{$id} that substitution makes 0xZZ", triggers: true, playlist: P.media(
                P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",X-COM-EXAMPLE-ID=0x{$id}")).replacingOccurrences(
                    of: "#EXT-X-TARGETDURATION:6", with: "#EXT-X-TARGETDURATION:6\n#EXT-X-DEFINE:NAME=\"id\",VALUE=\"ZZ\"")),
            SpecExample("0x{$id} and {$cmd} that substitution makes hexadecimal (rfc8216bis 4.3)", triggers: false, playlist: P.media(
                "#EXT-X-DATERANGE:ID=\"s1\",START-DATE=\"2020-01-02T21:55:44Z\",PLANNED-DURATION=15,SCTE35-OUT={$cmd},X-COM-EXAMPLE-ID=0x{$id}")
                .replacingOccurrences(of: "#EXT-X-TARGETDURATION:6",
                                      with: "#EXT-X-TARGETDURATION:6\n#EXT-X-DEFINE:NAME=\"id\",VALUE=\"ab12\"\n#EXT-X-DEFINE:NAME=\"cmd\",VALUE=\"0xFC302000\"")),
            SpecExample("valid SCTE35-OUT and client hexadecimal", triggers: false, playlist: P.media(
                "#EXT-X-DATERANGE:ID=\"s1\",START-DATE=\"2020-01-02T21:55:44Z\",PLANNED-DURATION=15,SCTE35-OUT=0xFC302000,X-COM-EXAMPLE-ID=0xab12")),
        ]) { context in
        context.mediaPlaylists.flatMap { media in
            media.playlist.dateRanges.flatMap { range -> [SpecViolation] in
                range.attributes.items.compactMap { item -> SpecViolation? in
                    if case .hexadecimal = item.value { return nil }
                    if scte35Attributes.contains(item.name) {
                        return SpecViolation(tag: range.label, playlist: media.reference, expected: "\(item.name)=0x<hexadecimal digits>",
                                             actual: "\(item.name)=\(item.value.text) (a \(item.value.typeName))",
                                             message: "\(item.name) is not a valid hexadecimal-sequence; its SCTE-35 data is dropped")
                    }
                    guard item.name.hasPrefix("X-"), case .enumerated(let text) = item.value,
                          text.hasPrefix("0x") || text.hasPrefix("0X") else { return nil }
                    return SpecViolation(tag: range.label, playlist: media.reference, expected: "\(item.name)=0x<hexadecimal digits>",
                                         actual: "\(item.name)=\(text)",
                                         message: "\(item.name)=\(text) is not a valid hexadecimal-sequence (only 0-9, A-F and a-f may follow 0x); players drop the value")
                }
            }
        }
    }
}
