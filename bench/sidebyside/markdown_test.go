package main

import "testing"

func TestReplaceSection(t *testing.T) {
	cases := []struct {
		name, doc, body, want string
		fails                 bool
	}{
		{"replaces", "# Speed\n" + beginMarker + "\nold\ntable\n" + endMarker + "\nafter\n", "new\n", "# Speed\n" + beginMarker + "\nnew\n" + endMarker + "\nafter\n", false},
		{"empty section", beginMarker + "\n" + endMarker + "\n", "t", beginMarker + "\nt\n" + endMarker + "\n", false},
		{"no end", beginMarker + "\nold\n", "new\n", "", true},
		{"no begin", "old\n" + endMarker + "\n", "new\n", "", true},
		{"reversed", endMarker + "\n" + beginMarker + "\n", "new\n", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := replaceSection(tc.doc, tc.body)
			if (err != nil) != tc.fails {
				t.Fatalf("err = %v, want failure %v", err, tc.fails)
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestQuantity(t *testing.T) {
	cases := []struct {
		unit string
		v    float64
		want string
	}{
		{"ms", 2.834, "2.83 ms"},
		{"ms", 189.4, "189 ms"},
		{"us", 359.4, "359 µs"},
		{"exec/s", 1044.2, "1,044 exec/s"},
		{"exec/s", 1234567, "1,234,567 exec/s"},
		{"B/exec", 624.6, "+625 bytes"},
		{"B/exec", 4300, "+4.20 KiB"},
		{"B/exec", -9, "-9 bytes"},
		{"x", 1.516, "1.52x"},
		{"x", 0.875, "0.88x"},
	}
	for _, tc := range cases {
		if got := quantity(row{unit: tc.unit}, tc.v); got != tc.want {
			t.Errorf("quantity(%s, %v) = %q, want %q", tc.unit, tc.v, got, tc.want)
		}
	}
}
