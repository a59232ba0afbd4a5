package redis

import "strings"

// The stored key layout.
//
// A pool key K is stored under the Redis key
//
//	escape(head) + "{" + escape(last) + "}"
//
// where last is K's final path segment (everything after K's last "/", or all
// of K when it has no "/"), head is everything before it (including that
// "/"), and escape replaces "%" with "%25", "{" with "%7B" and "}" with
// "%7D". After escaping, the braces kvctl adds are the only ones in the
// stored key, so the Redis cluster hash tag is exactly escape(last): for kvctl
// page keys and group keys that is the block hash, and every page of one
// block (all ranks, all layer groups) and the block's group key land on one
// cluster slot.
//
// Examples:
//
//	trtllm/m/w1r0/lg0/t32b1024/0123…ef -> trtllm/m/w1r0/lg0/t32b1024/{0123…ef}
//	trtllm/m/w1/0123…ef                -> trtllm/m/w1/{0123…ef}
//	a{b}/c%d                           -> a%7Bb%7D/{c%25d}
//	plain                              -> {plain}
//
// The mapping is one-to-one; poolKey inverts it and rejects every Redis key
// that storedKey cannot produce (keys other programs wrote), so listing skips
// them.

// storedKey is the Redis key that holds pool key k.
func storedKey(k string) string {
	i := strings.LastIndexByte(k, '/') + 1
	var b strings.Builder
	b.Grow(len(k) + 2)
	writeEscaped(&b, k[:i])
	b.WriteByte('{')
	writeEscaped(&b, k[i:])
	b.WriteByte('}')
	return b.String()
}

// poolKey inverts storedKey; ok is false when s is not a key storedKey makes.
func poolKey(s string) (k string, ok bool) {
	if !strings.HasSuffix(s, "}") {
		return "", false
	}
	open := strings.LastIndexByte(s, '{')
	if open < 0 || (open > 0 && s[open-1] != '/') {
		return "", false
	}
	head, last := s[:open], s[open+1:len(s)-1]
	if strings.ContainsAny(head, "{}") || strings.ContainsAny(last, "{}/") {
		return "", false
	}
	h, ok := unescape(head)
	if !ok {
		return "", false
	}
	l, ok := unescape(last)
	if !ok {
		return "", false
	}
	return h + l, true
}

// writeEscaped writes s with "%", "{" and "}" percent-encoded.
func writeEscaped(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '%':
			b.WriteString("%25")
		case '{':
			b.WriteString("%7B")
		case '}':
			b.WriteString("%7D")
		default:
			b.WriteByte(c)
		}
	}
}

// escaped is s as writeEscaped writes it.
func escaped(s string) string {
	var b strings.Builder
	writeEscaped(&b, s)
	return b.String()
}

// unescape inverts writeEscaped; ok is false for any "%" that does not start
// one of the three escapes writeEscaped produces.
func unescape(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+3 > len(s) {
			return "", false
		}
		switch s[i+1 : i+3] {
		case "25":
			b.WriteByte('%')
		case "7B":
			b.WriteByte('{')
		case "7D":
			b.WriteByte('}')
		default:
			return "", false
		}
		i += 2
	}
	return b.String(), true
}

// scanPattern is the SCAN MATCH pattern that selects every stored key whose
// pool key may start with prefix: the escaped directory part of the prefix
// (up to its last "/"), glob-escaped, then "*". Keys it selects must still be
// checked against the prefix after poolKey.
func scanPattern(prefix string) string {
	dir := prefix[:strings.LastIndexByte(prefix, '/')+1]
	return globEscape(escaped(dir)) + "*"
}

// globEscape backslash-escapes the characters Redis's glob matcher treats
// specially: * ? [ ] and the backslash itself.
func globEscape(s string) string {
	if !strings.ContainsAny(s, `*?[]\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
