package wire

// NotFinite reports whether err is the scalar readers' refusal of a number
// beyond float64's range (such as 1e400), so that a caller can say a
// finite number was wanted rather than any number.
func NotFinite(err error) bool { return err == errNotFinite }
