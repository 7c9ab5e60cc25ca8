import OverlayService
import ServiceTestSupport
import TestSupport

extension StreamBlock {
    /// The overlay version in the data (nchan's ids are its own, not versions).
    var overlayVersion: Int? { data.flatMap(version(ofJSON:)) }
}

/// The `version` of an overlay JSON text.
func version(ofJSON text: String) -> Int? {
    (try? JSONParser.parse(Array(text.utf8)))?["version"]?.int
}
