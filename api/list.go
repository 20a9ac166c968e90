package api

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/kit/cursor"
)

// listSpec declares one paginated list. serveList does the rest the same way for every
// list: the allowed parameters, limit (1–100, default 20), sortOrder, the cursor (a bad one
// is a 400), the page with its count, and the {data, hasMore, nextCursor, totalCount}
// envelope.
//
//	F: the db filter; P: the keyset position; R: the row; T: the resource shown.
type listSpec[F, P, R, T any] struct {
	// name is the list's name in its cursors (a cursor of one list is refused by another);
	// sortable lists append -asc or -desc.
	name string
	// params are every query parameter the list takes, in the order error messages name
	// them: its filters and "limit", "cursor" and (when sortable) "sortOrder".
	params []string
	// sortable lists take sortOrder=asc|desc, descending by default.
	sortable bool
	// ascending lists that are not sortable are in ascending order (a directory);
	// otherwise descending.
	ascending bool
	// filter reads and checks the filters of the caller's platform; q keeps the first error.
	filter func(q *query, platform uuid.UUID) F
	// read reads one page and its count.
	read func(ctx context.Context, conn db.ListDB, f F, p db.Page[P]) (db.Result[R], error)
	// pos is the position of a row, which the next page starts after.
	pos func(R) P
	// view renders a row.
	view func(R) T
}

// serveList answers a GET of the list l.
func serveList[F, P, R, T any](s *Server, w http.ResponseWriter, r *http.Request, l listSpec[F, P, R, T]) error {
	q := newQuery(r, l.params...)
	f := l.filter(q, callerPlatformID(r.Context()))
	name := l.name
	p := db.Page[P]{Asc: l.ascending}
	if l.sortable {
		order := q.enum("sortOrder", "asc", "desc")
		p.Asc = order != nil && *order == "asc"
		name += map[bool]string{true: "-asc", false: "-desc"}[p.Asc]
	}
	p.Limit = q.limit()
	if c := q.str("cursor"); c != nil {
		var pos P
		total, err := cursor.DecodePage(name, *c, &pos)
		if err != nil {
			q.fail(invalidField("cursor", "cursor is not valid for this list; pass nextCursor from a previous page unchanged"))
		} else {
			p.After, p.Total = &pos, total
		}
	}
	if q.err != nil {
		return q.err
	}
	res, err := l.read(r.Context(), s.Pool, f, p)
	if err != nil {
		return fmt.Errorf("list %s: %w", l.name, err)
	}
	out := List[T]{Data: make([]T, 0, len(res.Rows)), HasMore: res.HasMore, TotalCount: res.Total}
	for _, row := range res.Rows {
		out.Data = append(out.Data, l.view(row))
	}
	if res.HasMore {
		out.NextCursor = cursor.EncodePage(name, l.pos(res.Rows[len(res.Rows)-1]), res.Total)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// idPos is the position of a list ordered by id.
func idPos[R any](id func(R) uuid.UUID) func(R) db.IDPos {
	return func(r R) db.IDPos { return db.IDPos{ID: id(r)} }
}
