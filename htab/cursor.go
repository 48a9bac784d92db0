package htab

// Cursor remembers where a batch walk stands: the index of the next bucket to
// read, as the kernel's in_batch/out_batch do. The zero value starts at the
// beginning. A Cursor belongs to one walk of one map; it is not safe for
// concurrent use by several walks.
type Cursor struct {
	bucket uint32
	done   bool
}

// Bucket is the index of the next bucket the walk will read.
// Generated maps use it; callers need not.
func (c *Cursor) Bucket() uint32 { return c.bucket }

// Done reports whether the walk has returned ErrKeyNotExist (its end).
func (c *Cursor) Done() bool { return c.done }

// Advance records the next bucket to read and whether the walk has ended.
// Generated maps call it at the end of every batch call.
func (c *Cursor) Advance(bucket uint32, done bool) {
	c.bucket, c.done = bucket, done
}
