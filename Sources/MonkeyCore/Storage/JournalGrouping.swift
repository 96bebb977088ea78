/// A sync's typed entries regrouped by session on their way to the
/// journal: within one sync each session's entries follow one another, in
/// the order they were typed, in groups of up to 255 under one name and
/// epoch (`JournalGroup`).
///
/// Typed in tick order, with 10,000 sessions every entry of the journal
/// belongs to another session than the one before; the fold then met each
/// session's state, records and name out of the cache at every entry,
/// several misses each. Grouped, a session's entries of one sync come in a
/// row. The order across sessions carries no meaning in the journal: a
/// session's entries are told apart by name and epoch, and ordered by id.
public struct JournalGrouping: Sendable {
    /// Larger batches are written as they are: the buffers kept between
    /// syncs (about twice a batch) stay within this, and such a batch is
    /// flat-out typing, whose entries come a session's batch at a time.
    let largestBatch: Int
    /// The batch's places (`JournalBatch.places`) by session, then in typing order.
    private var order: [UInt64] = []
    /// Where each session hash's entries go next in `order`.
    private var next: [Int32] = []
    private var grouped = JournalBatch()

    public init(largestBatch: Int = 8 << 20) {
        self.largestBatch = largestBatch
    }

    /// The entries of `batch`, sealed, as sealed entries records grouped by
    /// session and epoch; nil when the batch is larger than `largestBatch`
    /// or cannot say where its entries lie (it is then written as it is).
    public mutating func group(_ batch: JournalBatch) -> ArraySlice<UInt8>? {
        guard batch.count <= largestBatch, let places = batch.places else { return nil }
        sort(places)
        grouped = JournalBatch(reusing: grouped)
        batch.records.bytes.withUnsafeBytes { grouped.append(groups: $0, at: order) }
        grouped.seal()
        return grouped.records.bytes
    }

    /// A counting sort by the highest 16 bits of the places' session keys
    /// (`EntryPlace`): stable, so each session's entries keep their typing
    /// order. Two passes over the places, where a comparison sort was a
    /// fifth of the grouping's time; then the buckets that sessions share
    /// are sorted by their whole keys.
    private mutating func sort(_ places: [UInt64]) {
        next.removeAll(keepingCapacity: true)
        next.append(contentsOf: repeatElement(0, count: 1 << 16))
        for place in places { next[EntryPlace.bucket(place)] &+= 1 }
        var start: Int32 = 0
        for session in next.indices {
            let count = next[session]
            next[session] = start
            start &+= count
        }
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: repeatElement(0, count: places.count))
        for place in places {
            let session = EntryPlace.bucket(place)
            order[Int(next[session])] = place
            next[session] &+= 1
        }
        separateSharedBuckets()
    }

    /// Sessions whose keys share their highest 16 bits meet in one bucket,
    /// their entries interleaved as they were typed: each such bucket is
    /// sorted by the whole key, stably. With 10,000 sessions a few hundred
    /// buckets are shared; finding them is a look at each place's
    /// neighbour in `order`.
    private mutating func separateSharedBuckets() {
        order.withUnsafeMutableBufferPointer { order in
            var start = 0
            while start < order.count {
                let bucket = EntryPlace.bucket(order[start])
                let key = EntryPlace.key(order[start])
                var end = start + 1
                var isShared = false
                while end < order.count && EntryPlace.bucket(order[end]) == bucket {
                    isShared = isShared || EntryPlace.key(order[end]) != key
                    end += 1
                }
                if isShared { Self.sortByKey(UnsafeMutableBufferPointer(rebasing: order[start..<end])) }
                start = end
            }
        }
    }

    /// Sorts `places` by their keys, stably: in place for a few (a sync's
    /// entries of two sessions typing at 10 Hz), by key and position for
    /// more (flat-out sessions' entries), never in quadratic time.
    static func sortByKey(_ places: UnsafeMutableBufferPointer<UInt64>) {
        guard places.count > 64 else {
            for index in places.indices.dropFirst() {
                let place = places[index]
                var slot = index
                while slot > 0 && EntryPlace.key(places[slot - 1]) > EntryPlace.key(place) {
                    places[slot] = places[slot - 1]
                    slot -= 1
                }
                places[slot] = place
            }
            return
        }
        let sorted = places.enumerated().sorted {
            (EntryPlace.key($0.element), $0.offset) < (EntryPlace.key($1.element), $1.offset)
        }
        for (index, item) in sorted.enumerated() { places[index] = item.element }
    }
}
