package api

import (
	"net/http"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/invitation"
	"paycore/internal/money"
)

// invitePagePath is where invitations' url points by default (PAYCORE_INVITATION_BASE_URL
// unset): the service's own page for the invitee.
const invitePagePath = "/invite/"

// invitePage is what the invitation page shows.
type invitePage struct {
	Title, Message, Amount, Code, Expires string
}

// serveInvitePage is GET /invite/{invitationCode}: the page an invitee opens, without
// authentication (the code is the credential). It shows who invited them and how much is
// waiting, and, while the invitation is pending, the code to give their payments app,
// which claims it with POST /invitations/{code}/claim.
func (s *Server) serveInvitePage(w http.ResponseWriter, r *http.Request) error {
	page := invitePage{Title: "You are invited"}
	code, ok := invitation.ParseCode(pathParam(r, "invitationCode"))
	var inv db.Invitation
	var err error
	if ok {
		inv, err = db.InvitationGetByCode(r.Context(), s.Pool, code)
	}
	if !ok || isNoRows(err) {
		page.Title, page.Message = "Invitation not found", "This invitation link is not valid."
		renderPage(w, http.StatusNotFound, "invite", page, "")
		return nil
	}
	if err != nil {
		return err
	}
	who := inv.InviterUma
	if inv.FirstName != nil {
		who = *inv.FirstName + " (" + inv.InviterUma + ")"
	}
	page.Title = who + " invited you to get paid with UMA"
	switch db.InvitationState(inv).StatusAt(s.now()) {
	case catalog.InvPending:
		page.Code = inv.Code
		if inv.ExpiresAt != nil {
			page.Expires = inv.ExpiresAt.UTC().Format("2 January 2006, 15:04 UTC")
		}
		if inv.AmountToSend != nil && inv.Currency != nil {
			if c, ok := money.Lookup(*inv.Currency); ok {
				page.Amount = c.Format(*inv.AmountToSend)
			}
		}
	case catalog.InvClaimed:
		page.Message = "This invitation was accepted."
	case catalog.InvExpired:
		page.Message = "This invitation has expired. Ask " + who + " for a new one."
	default:
		page.Message = "This invitation was cancelled."
	}
	renderPage(w, http.StatusOK, "invite", page, "")
	return nil
}
