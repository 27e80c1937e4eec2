import Foundation
@testable import HLS
import XCTest

final class URIResolutionTests: XCTestCase {
    /// RFC 3986 section 5.4: every normal and abnormal example, against http://a/b/c/d;p?q.
    func testRFC3986ReferenceResolutionExamples() {
        let base = URIReference(parsing: "http://a/b/c/d;p?q")
        let examples: [(String, String)] = [
            ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
            (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
            ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
            ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
            ("../../g", "http://a/g"),
            // 5.4.2 abnormal examples
            ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
            ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"),
            ("g?y/../x", "http://a/b/c/g?y/../x"), ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"),
            ("http:g", "http:g"),
        ]
        for (reference, expected) in examples {
            XCTAssertEqual(URIReference(parsing: reference).resolved(against: base).description, expected, reference)
        }
    }

    func testRemotePlaylistReferencesResolveAgainstTheirURL() throws {
        let playlist = InputLocation.remote(URL(string: "https://cdn.example/show/master.m3u8?token=1")!)
        XCTAssertEqual(try playlist.resolving("v/720p.m3u8").description, "https://cdn.example/show/v/720p.m3u8")
        XCTAssertEqual(try playlist.resolving("../ads/ad.m3u8").description, "https://cdn.example/ads/ad.m3u8")
        XCTAssertEqual(try playlist.resolving("//other.example/x.m3u8").description, "https://other.example/x.m3u8")
        XCTAssertEqual(try playlist.resolving("a b.m3u8").description, "https://cdn.example/show/a%20b.m3u8")
        XCTAssertEqual(playlist.queryParameters, ["token": "1"])
    }

    func testARemotePlaylistNeverLeadsToALocalFile() {
        let playlist = InputLocation.remote(URL(string: "http://127.0.0.1:8080/p/main.m3u8")!)
        for reference in ["file:///etc/passwd", "FILE:///etc/passwd", "file://localhost/etc/shadow", " file:/etc/passwd"] {
            XCTAssertThrowsError(try playlist.resolving(reference), reference) { error in
                XCTAssertEqual(error as? LoadError, .localReferenceFromRemote(reference: reference, playlist: playlist.description), reference)
                XCTAssertTrue("\(error)".contains("refused"))
            }
        }
        for reference in ["data:application/x-mpegurl;base64,I0VYVE0zVQ==", "ftp://host/x.m3u8", "skd://key"] {
            XCTAssertThrowsError(try playlist.resolving(reference), reference) { error in
                guard case .unsupportedScheme? = error as? LoadError else { return XCTFail("\(reference): \(error)") }
            }
        }
        // Relative references, however many dot segments, stay on the server.
        XCTAssertEqual(try? playlist.resolving("../../../../etc/passwd").description, "http://127.0.0.1:8080/etc/passwd")
    }

    func testLocalPlaylistsMayReferenceFilesAndHTTP() throws {
        let playlist = InputLocation.file(path: "/srv/media/show dir/main.m3u8")
        XCTAssertEqual(try playlist.resolving("v/720p.m3u8"), .file(path: "/srv/media/show dir/v/720p.m3u8"))
        XCTAssertEqual(try playlist.resolving("../ads/ad%201.m3u8"), .file(path: "/srv/media/ads/ad 1.m3u8"))
        XCTAssertEqual(try playlist.resolving("https://ads.example/ad.m3u8").description, "https://ads.example/ad.m3u8")
        XCTAssertTrue(InputLocation.isAbsoluteURI("https://ads.example/ad.m3u8"))
        XCTAssertFalse(InputLocation.isAbsoluteURI("ads/ad.m3u8"))
    }

    /// Plain absolute http(s) references skip the general resolution (issue 36): they must
    /// resolve to what it gives, and every other reference must still take it.
    func testPlainHTTPReferencesResolveAsTheGeneralPathDoes() throws {
        let plain = ["https://ads.example/1.m3u8?_HLS_interstitial_id=ad1", "http://127.0.0.1:8080/a/b.m3u8", "https://ads.example/pod/2.m3u8",
                     "https://user@ads.example:443/x;p=1/y.m3u8?a=b&c=%20d", "https://ads.example", "https://ads.example/a.b/c/d.",
                     "https:///nohost.m3u8"]
        let other = ["HTTPS://ads.example/1.m3u8", "https://ads.example/a/./b.m3u8", "https://ads.example/a/../b.m3u8", "https://ads.example/.x",
                     "https://ads.example/1.m3u8#t=5", "https://ads.example/a b.m3u8", "https://ads.example/caf\u{E9}.m3u8", "https://ads.example/{x}",
                     "ftp://ads.example/1.m3u8", "ads/1.m3u8", "//ads.example/1.m3u8", "https:relative",
                     "https://ads.example/a.b/..c/d"]  // no dot segment, but any "/." takes the general path
        for base in [InputLocation.remote(URL(string: "https://cdn.example/show/main.m3u8")!), InputLocation.file(path: "/tmp/show/main.m3u8")] {
            for reference in plain + other {
                XCTAssertEqual(URIReference.isPlainHTTP(reference), plain.contains(reference), reference)
                // The general path, as `resolving` took it for every reference before.
                var general = URIReference(parsing: URIReference.encodingInvalidCharacters(reference))
                general = general.resolved(against: general.scheme == nil ? URIReference(parsing: base.uriText) : general)
                general.fragment = nil
                let expected = ["http", "https"].contains(general.scheme?.lowercased() ?? "")
                    ? URL(string: general.description).flatMap { url in url.host.map { $0.isEmpty ? nil : url } ?? nil } : nil
                switch (Result { () throws(LoadError) in try base.resolving(reference) }, expected) {
                case (.success(.remote(let url)), let expected?): XCTAssertEqual(url, expected, reference)
                case (.success(let location), let expected):
                    XCTAssertNil(expected, "\(reference): \(location)")
                    if case .remote = location { XCTFail("\(reference) resolved to \(location); the general path refuses it") }
                case (.failure, let expected): XCTAssertNil(expected, reference)
                }
            }
        }
    }
}
