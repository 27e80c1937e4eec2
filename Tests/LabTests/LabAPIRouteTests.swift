import Foundation
import Hummingbird
import HummingbirdTesting
import SeamcheckTestSupport
import XCTest
@testable import LabCore
@testable import LabServer

/// The lab page's JSON API in process (HummingbirdTesting's router framework: no socket, no
/// port): who may write a verdict, what a bad one answers, and what the API reads back. The
/// socket-level behaviour (keep-alive, ranges, cut downloads, the request log) stays in
/// EndToEndTests' LabServeTests and LabWriteAccessTests.
final class LabAPIRouteTests: XCTestCase {
    var path = ""

    override func setUp() { path = LabTestData.temporaryDatabase() }

    override func tearDown() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func application(_ store: LabStore) -> some ApplicationProtocol {
        let router = Router(context: LabRequestContext.self)
        LabAPI(store: store, manifest: LabTestData.manifest, profiles: [], access: LabAccess(token: "t0k", bind: "127.0.0.1"))
            .register(on: router)
        return Application(router: router)
    }

    /// Reads the API's JSON: dates as ISO 8601 with milliseconds.
    static func decode<T: Decodable>(_ type: T.Type, _ body: ByteBuffer) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            guard let date = formatter.date(from: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not ISO 8601: \(text)"))
            }
            return date
        }
        return try decoder.decode(type, from: Data(buffer: body))
    }

    static func post(_ client: some TestClientProtocol, _ json: String, token: String?) async throws -> (HTTPResponse.Status, String) {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.init(LabAccess.tokenHeader)!] = token }
        return try await client.execute(uri: "/api/verdicts", method: .post, headers: headers, body: ByteBuffer(string: json)) {
            ($0.status, String(buffer: $0.body))
        }
    }

    func testAVerdictIsWrittenOnlyWithTheTokenAndABadOneSaysWhy() async throws {
        let store = try LabStore(path: path, station: "s1")
        try store.upsert(LabReceiverRecord(address: "10.0.0.2", name: "Den", deviceClass: "smart-tv-low-end", reason: "test", source: .inventory))
        try await application(store).test(.router) { client in
            let verdict = #"{"receiver":"Den","case":"control","verdict":"glitch","seconds":1.5}"#
            let refused = try await Self.post(client, verdict, token: nil)
            XCTAssertEqual(refused.0, .forbidden, refused.1)
            let wrong = try await Self.post(client, verdict, token: "wrong")
            XCTAssertEqual(wrong.0, .forbidden)
            let created = try await Self.post(client, verdict, token: "t0k")
            XCTAssertEqual(created.0, .created, created.1)
            XCTAssertTrue(created.1.contains(#""verdict":"glitch""#), created.1)
            let unknownCase = try await Self.post(client, #"{"receiver":"Den","case":"nope","verdict":"glitch"}"#, token: "t0k")
            XCTAssertEqual(unknownCase.0, .badRequest)
            XCTAssertTrue(unknownCase.1.contains("nope"), unknownCase.1)
            let badBody = try await Self.post(client, "verdict=glitch", token: "t0k")
            XCTAssertEqual(badBody.0, .badRequest, badBody.1)
            try await client.execute(uri: "/api/verdicts", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                let document = try Self.decode(VerdictsDocument.self, response.body)
                XCTAssertEqual(document.verdicts.map(\.verdict), [.glitch], "only the verdict that was allowed")
                XCTAssertEqual(document.verdicts.first?.source, .operator)
                XCTAssertEqual(document.verdicts.first?.via, "page")
            }
        }
        XCTAssertEqual(try store.verdicts().count, 1)
    }

    func testTheAPIReadsTheStationsReceiversAndTheCases() async throws {
        let store = try LabStore(path: path, station: "s1")
        try store.upsert(LabReceiverRecord(address: "10.0.0.2", name: "Den", deviceClass: "smart-tv-low-end", reason: "test", source: .inventory))
        try await application(store).test(.router) { client in
            try await client.execute(uri: "/api/receivers", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                let document = try Self.decode(ReceiversDocument.self, response.body)
                XCTAssertEqual(document.receivers.map(\.name), ["Den"])
            }
            try await client.execute(uri: "/api/cases", method: .get) { response in
                let manifest = try Self.decode(LabManifest.self, response.body)
                XCTAssertEqual(manifest.cases.map(\.id), LabTestData.manifest.cases.map(\.id))
            }
        }
    }
}
