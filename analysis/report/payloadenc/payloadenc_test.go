package payloadenc

import (
	"bufio"
	"bytes"
	"testing"
)

func TestEncode(t *testing.T) {
	bin := []byte{0xff, 0x00, 'a'}
	ctl := []byte("a\x01b")
	cases := []struct {
		enc  Encoding
		in   []byte
		want string
	}{
		{Auto, []byte("héllo\tworld"), "héllo\tworld"},
		{"", []byte("plain"), "plain"},
		{Auto, bin, "0xff0061"},
		{Auto, ctl, "0x610162"},
		{Text, ctl, "a\x01b"},
		{Text, bin, `"\xff\x00a"`},
		{Hex, []byte("ab"), "6162"},
		{Base64, []byte("ab"), "YWI="},
	}
	for _, c := range cases {
		if got := c.enc.Encode(c.in); got != c.want {
			t.Errorf("%q.Encode(%q) = %q, want %q", c.enc, c.in, got, c.want)
		}
	}
}

func TestEncodeJSON(t *testing.T) {
	cases := []struct {
		enc           Encoding
		in            []byte
		value, format any
	}{
		{Auto, nil, nil, nil},
		{Hex, nil, nil, nil},
		{Auto, []byte{}, "", "utf8"},
		{Auto, []byte("a\x01b"), "610162", "hex"},
		{Text, []byte("a\x01b"), "a\x01b", "utf8"},
		{Text, []byte{0xff}, "ff", "hex"},
		{Base64, []byte("ab"), "YWI=", "base64"},
	}
	for _, c := range cases {
		v, f := c.enc.EncodeJSON(c.in)
		if v != c.value || f != c.format {
			t.Errorf("%q.EncodeJSON(%q) = %v, %v; want %v, %v", c.enc, c.in, v, f, c.value, c.format)
		}
	}
}

func TestNonNegativeAndWriteLine(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	WriteLine(w, map[string]any{"none": NonNegative(-1), "zero": NonNegative(0)})
	w.Flush()
	if got, want := buf.String(), `{"none":null,"zero":0}`+"\n"; got != want {
		t.Errorf("WriteLine = %q, want %q", got, want)
	}
}
