@testable import AirPlay
import Foundation
import SeamcheckTestSupport

extension HAPAccessory {
    var endpoint: AirPlayEndpoint { AirPlayEndpoint(host: "127.0.0.1", port: port, name: "hap-python") }
}
