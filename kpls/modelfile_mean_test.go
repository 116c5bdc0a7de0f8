package kpls

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"
)

// resigned returns a binary model file with its header edited by edit,
// the arrays kept and the checksum recomputed.
func resigned(t *testing.T, file []byte, edit func(string) string) []byte {
	t.Helper()
	h := int64(binary.LittleEndian.Uint32(file[12:16]))
	header := edit(string(file[prefixSize : prefixSize+h]))
	arrays := file[arrayStart(h) : len(file)-4]
	b := append([]byte(nil), file[:12]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(header)))
	b = append(b, header...)
	b = append(b, make([]byte, int(arrayStart(int64(len(header))))-len(b))...)
	b = append(b, arrays...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}

// TestMeanFile saves a mean of three models: the file is of version 5,
// holds the training inputs once, and reads back as a mean that predicts
// and bands as the saved one, bit for bit, with the same statistics. Load
// and LoadModels refuse it; a file of means of one model each is a plain
// version 4 file; LoadMeans reads a plain file as means of one model
// each; headers whose means do not fit their entries are refused.
func TestMeanFile(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(40, 3, 35)
	z, _ := gaussData(6, 3, 36)
	members := fitMembers(t, x, y, meanMembers)
	for _, m := range members {
		m.opts.TargetName = "y"
	}
	mean, err := NewMean(members...)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := saveMeans(&buf, []string{"y"}, []*Mean{mean}); err != nil {
		t.Fatal(err)
	}
	file := bytes.Clone(buf.Bytes())
	if v := binary.LittleEndian.Uint32(file[8:12]); v != 5 {
		t.Errorf("a mean of 3 models is written as version %d, want 5", v)
	}
	var sep bytes.Buffer
	for _, m := range members {
		if err := m.save(&sep); err != nil {
			t.Fatal(err)
		}
	}
	// The three files hold x three times: 40×3 values, 8 bytes each.
	if saved := sep.Len() - len(file); saved < 2*40*3*8 {
		t.Errorf("the mean's file is %d bytes, its models' files %d: x is not shared", len(file), sep.Len())
	}
	names, means, err := loadMeans(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(means) != 1 || len(names) != 1 || names[0] != "y" || len(means[0].Members()) != 3 {
		t.Fatalf("read %d means named %q", len(means), names)
	}
	got := means[0]
	for i, m := range got.Members() {
		sameModel(t, "member", members[i], m)
	}
	if g, w := got.stats, mean.stats; !sameFloat(g.RSS, w.RSS) || !sameFloat(g.DoF, w.DoF) || !sameFloat(g.Sigma, w.Sigma) {
		t.Errorf("stats %+v, want %+v", g, w)
	}
	for _, intervals := range []bool{false, true} {
		predict := func(a *Mean) ([]bandValue, error) {
			if intervals {
				return a.predictIntervals(ctx, z, bandOpts{Level: 0.9})
			}
			return a.predictBands(ctx, z, bandOpts{Level: 0.9})
		}
		want, err1 := predict(mean)
		have, err2 := predict(got)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		for i := range want {
			if want[i] != have[i] {
				t.Errorf("intervals %v, row %d: %+v, want %+v", intervals, i, have[i], want[i])
			}
		}
	}

	if info, err := Inspect(bytes.NewReader(file)); err != nil || info.Version != 5 || len(info.Means) != 1 || info.Means[0] != 3 || len(info.Models) != 3 {
		t.Errorf("Inspect: %v %+v", err, info)
	}
	if _, err := loadModel(bytes.NewReader(file)); !errors.Is(err, ErrModelFile) || !strings.Contains(err.Error(), "read it with Load") {
		t.Errorf("Load of a mean: %v", err)
	}
	if _, _, err := loadModels(bytes.NewReader(file)); !errors.Is(err, ErrModelFile) || !strings.Contains(err.Error(), "read it with Load") {
		t.Errorf("LoadModels of a mean: %v", err)
	}

	ones := make([]*Mean, 2)
	for i := range ones {
		if ones[i], err = NewMean(members[i]); err != nil {
			t.Fatal(err)
		}
	}
	buf.Reset()
	if err := saveMeans(&buf, []string{"a", "b"}, ones); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(buf.Bytes()[8:12]); v != 4 {
		t.Errorf("means of one model are written as version %d, want 4", v)
	}
	plainNames, plain, err := loadModels(bytes.NewReader(buf.Bytes()))
	if err != nil || len(plain) != 2 || plainNames[1] != "b" {
		t.Fatalf("means of one read as models: %v %q", err, plainNames)
	}
	_, back, err := loadMeans(bytes.NewReader(buf.Bytes()))
	if err != nil || len(back) != 2 || len(back[1].Members()) != 1 {
		t.Fatalf("a plain file read as means: %v", err)
	}
	p1, _ := back[1].predict(ctx, z)
	p2, _ := members[1].predictAt(ctx, z, members[1].Chosen().M)
	for i := range p1 {
		if !sameFloat(p1[i], p2[i]) {
			t.Errorf("row %d: a model read as a mean predicts %v, the model %v", i, p1[i], p2[i])
		}
	}

	for what, edit := range map[string]func(string) string{
		"more models than entries": func(h string) string { return strings.Replace(h, `"means":[3]`, `"means":[4]`, 1) },
		"a name on two means":      func(h string) string { return strings.Replace(h, `"means":[3]`, `"means":[1,2]`, 1) },
		"an empty mean":            func(h string) string { return strings.Replace(h, `"means":[3]`, `"means":[3,0]`, 1) },
		"no means in version 5":    func(h string) string { return strings.Replace(h, `,"means":[3]`, ``, 1) },
	} {
		bad := resigned(t, file, edit)
		if bytes.Equal(bad, file) {
			t.Fatalf("%s: the edit changed nothing", what)
		}
		if _, _, err := loadMeans(bytes.NewReader(bad)); !errors.Is(err, ErrModelFile) {
			t.Errorf("%s: %v", what, err)
		}
	}
	if _, _, err := loadMeans(bytes.NewReader(resigned(t, file, func(h string) string { return h }))); err != nil {
		t.Errorf("the file re-signed unchanged: %v", err)
	}
	for _, bad := range [][]*Mean{nil, {mean, nil}} {
		if err := saveMeans(&buf, nil, bad); !errors.Is(err, ErrShape) {
			t.Errorf("SaveMeans of %d means: %v", len(bad), err)
		}
	}
	if err := saveMeans(&buf, []string{"a", "a"}, []*Mean{mean, mean}); !errors.Is(err, ErrShape) {
		t.Errorf("two means of one name: %v", err)
	}
}
