@testable import AirPlay
import XCTest

final class AirPlayEndpointTests: XCTestCase {
    func testEndpointNamesIPv6AddressesInBrackets() {
        XCTAssertEqual(AirPlayEndpoint(host: "fe80::1", port: 7000).description, "[fe80::1]:7000")
        XCTAssertEqual(AirPlayEndpoint(host: "10.0.0.2", port: 36667, name: "Kodi").description, "Kodi (10.0.0.2:36667)")
    }
}
