package api

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// byDeadline sorts questions as a list by deadline holds them: soonest
// first, those that never time out last, ties by id.
func byDeadline(qs []*hitl.Question) []string {
	qs = slices.Clone(qs)
	slices.SortFunc(qs, func(a, b *hitl.Question) int {
		switch {
		case a.TimeoutAt == nil && b.TimeoutAt == nil:
		case a.TimeoutAt == nil:
			return 1
		case b.TimeoutAt == nil:
			return -1
		case !a.TimeoutAt.Equal(*b.TimeoutAt):
			return a.TimeoutAt.Compare(*b.TimeoutAt)
		}
		if a.ID < b.ID {
			return -1
		}
		return 1
	})
	ids := make([]string, len(qs))
	for i, q := range qs {
		ids[i] = q.ID
	}
	return ids
}

// pageAll reads every page of path with query q, limit at a time, and
// calls between after each page; it returns the ids in the order listed.
func pageAll(t *testing.T, base, path string, q url.Values, limit int, between func()) []string {
	t.Helper()
	q.Set("limit", fmt.Sprint(limit))
	var ids []string
	for pages := 0; ; pages++ {
		require.Less(t, pages, 1000, "paging does not end")
		r := callURL(t, "GET", base+path+"?"+q.Encode(), "")
		require.Equal(t, 200, r.status, r.raw)
		list := r.body["questions"].([]any)
		require.LessOrEqual(t, len(list), limit)
		for _, v := range list {
			ids = append(ids, v.(map[string]any)["id"].(string))
		}
		next, _ := r.body["nextCursor"].(string)
		if next == "" {
			return ids
		}
		q.Set("cursor", next)
		if between != nil {
			between()
		}
	}
}

// TestListsByDeadline: GET /api/questions?order=deadline (and the pending
// and job lists) list pending questions soonest deadline first, those
// that never time out last, and page exactly: every question that
// existed before paging began once, in order, while questions are added
// between the pages (sooner than the cursor, later, never timing out).
func TestListsByDeadline(t *testing.T) {
	ctx := principaltest.As(context.Background(), "api:test")
	e := newBoltEnv(t)
	var pending []*hitl.Question
	for i := range 40 {
		n := hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutesOf(float64(10 + (i*7)%50))} // deadlines out of creation order, some equal
		if i%9 == 4 {
			n = hitl.NewQuestion{Question: "FYI", Type: hitl.NonBlocking, DefaultResponse: &hitl.Response{Value: "ok"}} // never times out
		}
		q, _, err := e.svc.Questions.Create(ctx, fmt.Sprintf("job-%d", i%2), n)
		require.NoError(t, err)
		if i%5 == 0 {
			_, err = e.svc.Questions.Answer(principaltest.As(context.Background(), "local"), q.ID, hitl.Response{Value: "done"})
			require.NoError(t, err)
			continue
		}
		pending = append(pending, q)
	}
	want := byDeadline(pending)

	t.Run("soonest deadline first, page by page", func(t *testing.T) {
		for _, path := range []string{"/api/questions", "/api/questions/pending"} {
			assert.Equal(t, want, pageAll(t, e.base, path, url.Values{"order": {"deadline"}}, 3, nil), path)
		}
		assert.Equal(t, want, pageAll(t, e.base, "/api/questions", url.Values{"order": {"deadline"}, "status": {"pending"}}, 1000, nil), "one page")
		var job1 []*hitl.Question
		for _, q := range pending {
			if q.RunID == "job-1" {
				job1 = append(job1, q)
			}
		}
		assert.Equal(t, byDeadline(job1), pageAll(t, e.base, "/api/jobs/job-1/questions", url.Values{"order": {"deadline"}}, 4, nil), "a job's")
		assert.Equal(t, byDeadline(job1), pageAll(t, e.base, "/api/questions", url.Values{"order": {"deadline"}, "jobId": {"job-1"}}, 4, nil))
	})

	t.Run("order=created is the default", func(t *testing.T) {
		assert.Equal(t, pageAll(t, e.base, "/api/questions", url.Values{}, 7, nil), pageAll(t, e.base, "/api/questions", url.Values{"order": {"created"}}, 7, nil))
	})

	t.Run("every question once, in order, with questions added between the pages", func(t *testing.T) {
		i := 0
		var added []*hitl.Question
		insert := func() { // one soon, one late, one never, between every two pages
			i++
			for _, n := range []hitl.NewQuestion{{Question: "Soon?", TimeoutMinutes: minutesOf(6)}, {Question: "Late?", TimeoutMinutes: minutesOf(float64(60 + i))},
				{Question: "FYI", Type: hitl.NonBlocking, DefaultResponse: &hitl.Response{Value: "ok"}}} {
				q, _, err := e.svc.Questions.Create(ctx, "job-3", n)
				require.NoError(t, err)
				added = append(added, q)
			}
		}
		got := pageAll(t, e.base, "/api/questions", url.Values{"order": {"deadline"}}, 4, insert)
		seen := map[string]int{}
		for _, id := range got {
			seen[id]++
		}
		for id, n := range seen {
			assert.Equal(t, 1, n, "%s listed %d times", id, n)
		}
		for _, id := range want {
			assert.Contains(t, seen, id, "%s was pending before paging began", id)
		}
		all := append(slices.Clone(pending), added...)
		assert.Equal(t, slices.DeleteFunc(byDeadline(all), func(id string) bool { return seen[id] == 0 }), got,
			"what was listed, in deadline order")
	})

	t.Run("the SDK asks for it", func(t *testing.T) {
		c := client.NewClient(e.base, "")
		var got []string
		f := hitl.QuestionFilter{ByDeadline: true, RunID: "job-0", Limit: 5}
		for {
			page, err := c.QuestionPage(ctx, f)
			require.NoError(t, err)
			for _, q := range page.Questions {
				got = append(got, q.ID)
			}
			if page.NextCursor == "" {
				break
			}
			f.Cursor = page.NextCursor
		}
		var job0 []*hitl.Question
		for _, q := range pending {
			if q.RunID == "job-0" {
				job0 = append(job0, q)
			}
		}
		assert.Equal(t, byDeadline(job0), got)
	})
}

// TestListOrderInvalid: an order the API does not know, or one it cannot
// give, is a 400 invalid that says what to use.
func TestListOrderInvalid(t *testing.T) {
	e := newEnv(t, ServerConfig{})
	for _, c := range []struct{ query, says string }{
		{"order=soonest", "use created (the default) or deadline"},
		{"order=Deadline", "use created (the default) or deadline"},
		{"order=deadline&status=answered", "pending questions only"},
	} {
		for _, path := range []string{"/api/questions", "/api/jobs/job-1/questions"} {
			r := e.call(t, "GET", path+"?"+c.query, "")
			assert.Equal(t, 400, r.status, "%s?%s: %s", path, c.query, r.raw)
			assert.Equal(t, "invalid", r.body["code"], r.raw)
			assert.Contains(t, r.body["message"], c.says)
		}
	}
	r := e.call(t, "GET", "/api/questions/pending?order=soonest", "")
	assert.Equal(t, 400, r.status, r.raw)
	assert.Equal(t, "invalid", r.body["code"], r.raw)

	for range 3 {
		e.ask(t, "job-1", hitl.NewQuestion{Question: "Q?"})
	}
	r = e.call(t, "GET", "/api/questions?limit=1", "")
	require.Equal(t, 200, r.status, r.raw)
	created, _ := r.body["nextCursor"].(string)
	require.NotEmpty(t, created)
	for _, base := range []string{e.http.URL, newBoltEnv(t).base} {
		r = callURL(t, "GET", base+"/api/questions?order=deadline&limit=1&cursor="+url.QueryEscape(created), "")
		if r.status != 200 { // a store may or may not tell another list's cursor; never a failure of its own
			assert.Equal(t, 400, r.status, r.raw)
			assert.Equal(t, "invalid", r.body["code"], r.raw)
		}
	}
}

func minutesOf(m float64) *float64 { return &m }
