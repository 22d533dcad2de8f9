package realkafka

import (
	"context"
	"testing"
	"time"
)

func TestSmoke(t *testing.T) {
	k, err := Resolve(Newest)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEnv(k, t.TempDir(), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	ctx := context.Background()
	start := time.Now()
	c, err := e.NewCluster(ctx, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ready after %v", time.Since(start))
	if err := CreateTopic(ctx, c, "t", 2, 1, nil); err != nil {
		t.Fatal(err)
	}
	p, err := e.StartProducer("p1", map[string]string{"bootstrap.servers": c.BootstrapString()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		p.Send(string(rune('a'+i)), "t", int32(i%2), []byte("k"), []byte("v"), nil)
	}
	p.Flush()
	if err := p.WaitAcks(10, 60*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("acks %v after %v", p.Acks(), time.Since(start))
	p.Close()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	t.Logf("stopped after %v", time.Since(start))
}
