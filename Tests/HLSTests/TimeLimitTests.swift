import HLS
import XCTest

/// The configuration of every playlist fetch: the user's --timeout is the limit, headers and body
/// alike, with no hidden cap (it was 10 s for the headers whatever --timeout said); interstitials
/// keep the players' wait unless --timeout is shorter; each limit names itself when it fires.
final class TimeLimitTests: XCTestCase {
    func testTheTimeoutGivenIsEveryPlaylistFetchsLimitWhateverItsSize() {
        for seconds in [0.5, 1, 9.99, 10, 10.01, 30, 600, 1_000_000] {
            let options = PresentationLoader.Options(timeout: seconds, fetchAssets: true)
            XCTAssertEqual(options.playlistLimits.connectTimeout, seconds, "\(seconds)")
            XCTAssertEqual(options.playlistLimits.totalTimeout, seconds, "\(seconds)")
            XCTAssertEqual(options.playlistLimits.timeLimit, .option, "\(seconds)")
            XCTAssertTrue(options.fetchAssets)
        }
    }

    func testInterstitialsWaitAsPlayersDoUnlessTheTimeoutIsShorter() {
        let long = PresentationLoader.Options(timeout: 30, fetchAssets: true)
        XCTAssertEqual(long.assetLimits.connectTimeout, PresentationLoader.Options.interstitialWait)
        XCTAssertEqual(long.assetLimits.totalTimeout, PresentationLoader.Options.interstitialWait)
        XCTAssertEqual(long.assetLimits.timeLimit, .interstitial)
        XCTAssertEqual(PresentationLoader(options: long).assetPlaylistLimits.timeLimit, .interstitial, "asset playlists too")

        let short = PresentationLoader.Options(timeout: 2, fetchAssets: false)
        XCTAssertEqual(short.assetLimits.totalTimeout, 2)
        XCTAssertEqual(short.assetLimits.connectTimeout, 2)
        XCTAssertEqual(short.assetLimits.timeLimit, .option, "the shorter --timeout is what fires, so it is what is named")
        XCTAssertEqual(PresentationLoader(options: short).assetPlaylistLimits.totalTimeout, 2)
        XCTAssertFalse(short.fetchAssets)
    }

    func testTheMessageNamesTheLimitThatFiredAndWhatToDo() {
        let option = LoadError.noResponse("http://h/a.m3u8", seconds: 30, limit: .option).description
        XCTAssertTrue(option.contains("no response within 30 s (--timeout)"), option)
        XCTAssertTrue(option.contains("raise --timeout"), option)
        let players = LoadError.timedOut("http://h/ad.m3u8", seconds: 10, limit: .interstitial).description
        XCTAssertTrue(players.contains("within 10 s (the time players wait for an interstitial"), players)
        XCTAssertFalse(players.contains("raise --timeout"), "raising --timeout would not help: \(players)")
    }
}
