/// A test matrix: cases (primary and interstitial inputs, or a primary playlist) run against
/// device classes. Filled in by the matrix work (issue 7).
public enum MatrixModule {}
