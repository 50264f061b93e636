# engine/_rules_lacerda.pxi: part of engine/_core.pyx (included there; one compiled module so
# that the rules inline into each other).
#
# Lacerda, the solo opponent (R-SCOPE-2, RN §10, C§14): her moves, market placements
# and what happens when the player kicks her out.

# ---------------------------------------------------------------- Lacerda (solo)
# docs/rules.md R-SCOPE-2, RN §10, C§14: the engine moves her; her only
# decision-like step, the colour of the ticket discarded when she is kicked out among tied
# largest stacks, is the player's (T_DISCARD_LARGEST). Her turn follows each of the
# player's turns (finish_turn), so the turn counter counts the player's turns only.
#
# Readings where the sources leave it open (SOLO = the SliceOfBread/Soloist code that
# RN §10 rests on; docs/rules.md §5.4):
# - She first appears at her first turn, opposite the player's gallerist as it stands
#   then (SOLO). That arrival is an arrival like any other: it kicks out a piece there
#   and, at the market, places an assistant (SOLO skips the placement on this first
#   arrival; RN §10 "entering the IM" does not). She leaves nothing behind then.
# - Her steps run in SOLO's order: market placement, then the piece on the destination,
#   then the assistant left behind; with one assistant in supply the market gets it.
# - With an empty supply, the market assistant comes from the first location, in the
#   order SO, AC, MC, IM, holding one of hers (SOLO); with none, she places nothing.
# - The piece the player kicks out stays on the kicked-out space until the end of the
#   player's turn, like any kicked-out piece; then it goes to her supply, her market
#   placement follows (kicked out of the market) and then the discard. This also happens
#   in the final turn (SOLO); the box office is empty then, so nothing is discarded.
# - A discard that empties a colour is the first emptying of R-INT-1 like any other.
# - Auction (R-AUC-1): she bids with her offer and comes after the player in turn order.

cdef inline bint lac_on_board(const StateC* s) noexcept nogil:
    """Her gallerist stands on lac_loc (not yet placed, or kicked out, otherwise)."""
    return (s.lac_loc >= 0 and s.loc_owner[s.lac_loc] == LACERDA
            and s.loc_kind[s.lac_loc] == PIECE_GALLERIST)

cdef void lacerda_market(StateC* s) noexcept nogil:
    """RN §10: she places an assistant on the first International Market space of her
    fixed order that holds no assistant; a reputation tile there is discarded. The
    assistant comes from her supply or, when it is empty, from the first location (SO,
    AC, MC, IM) holding one of hers (SOLO's lacerdaIM order); with neither, nothing."""
    cdef int i, r = -1, c = -1, L
    for i in range(14):
        if s.mk_asst[LACERDA_MARKET_ORDER[i][0]][LACERDA_MARKET_ORDER[i][1]] < 0:
            r = LACERDA_MARKET_ORDER[i][0]
            c = LACERDA_MARKET_ORDER[i][1]
            break
    if r < 0:
        return
    if s.lac_supply > 0:
        s.lac_supply -= 1
    else:
        L = 0
        while L < NUM_LOCATIONS and not (s.loc_owner[L] == LACERDA
                                         and s.loc_kind[L] == PIECE_ASSISTANT):
            L += 1
        if L == NUM_LOCATIONS:
            return
        s.loc_owner[L] = -1
    if r < 4:
        s.mk_tile[r][c] = -1
    s.mk_asst[r][c] = LACERDA

cdef bint lacerda_move(StateC* s) noexcept nogil:
    """Her turn (RN §10): the first time she appears opposite the player's gallerist (two
    steps round); later she moves one location clockwise. Entering the market she places
    an assistant there; she sends her own assistant on the destination back to her supply
    and kicks out the player's piece there; then, if she left a location (not when coming
    back after being kicked out), she leaves an assistant from her supply on it. The
    steps run in SOLO's order. Returns whether the player's piece was kicked out."""
    cdef int frm = s.lac_loc, to, q, g
    cdef bint on_board = lac_on_board(s), kicked = False
    if frm < 0:
        g = s.players[0].gallerist
        to = ((g if g < NUM_LOCATIONS else LOC_SALES) + 2) % NUM_LOCATIONS
    else:
        to = (frm + 1) % NUM_LOCATIONS
    if to == LOC_MARKET:
        lacerda_market(s)
    q = s.loc_owner[to]
    if q == LACERDA:                  # her own assistant returns to her supply
        s.lac_supply += 1
    elif q >= 0:                      # the player's piece: a kicked-out action follows
        s.ko_owner = q
        s.ko_kind = s.loc_kind[to]
        s.ko_loc = to
        if s.loc_kind[to] == PIECE_GALLERIST:
            s.players[q].gallerist = GAL_KO
        kicked = True
    if on_board:
        s.loc_owner[frm] = -1
    s.loc_owner[to] = LACERDA
    s.loc_kind[to] = PIECE_GALLERIST
    s.lac_loc = to
    if on_board and s.lac_supply > 0:
        s.lac_supply -= 1
        s.loc_owner[frm] = LACERDA
        s.loc_kind[frm] = PIECE_ASSISTANT
    return kicked

cdef void lacerda_kicked(StateC* s) noexcept nogil:
    """End of the player's turn after kicking her piece out (RN §10): it returns to her
    supply (a gallerist simply leaves the board) and she never takes a kicked-out action;
    kicked out of the market she places a market assistant. The ticket discard follows
    (T_DISCARD_LARGEST)."""
    cdef int L = s.ko_loc
    if s.ko_kind == PIECE_ASSISTANT:
        s.lac_supply += 1
    s.ko_owner = -1
    s.ko_loc = -1
    if L == LOC_MARKET:
        lacerda_market(s)
