/* The Gallerist: every component number the engine uses, in one place.
 *
 * Each table names its section of docs/rules.md: a component table ("C§n") or a
 * settled rule ("R-..."), so that a reader with the
 * physical game can check and correct a value here.
 *
 * Index conventions (shared with engine/_core.pxd and engine/names.py):
 *   art form  : 0 painting, 1 sculpture, 2 photography, 3 digital
 *   visitor   : 0 VIP (pink), 1 investor (brown), 2 collector (white); ticket colours alike
 *   location  : 0 Sales Office, 1 Artists Colony, 2 Media Center, 3 International Market
 *               (clockwise order of the solo bot, C§14)
 *   artist    : slot 2*form + colour (colour 0 blue, 1 red); each slot holds one of two tiles
 */
#ifndef GALLERIST_DATA_H
#define GALLERIST_DATA_H

#include <stdint.h>

/* C§1 Player start: $10, influence 10, 2 assistants on desks, 8 in the queue. */
static const int16_t START_MONEY = 10;
static const int8_t START_INFLUENCE = 10;
static const int8_t START_DESKS = 2;
static const int8_t START_QUEUE = 8;
static const int8_t NUM_DESKS = 4;

/* C§1 / C§13 Visitors of each type by player count (index = player count 1..4):
 * 14 VIP, 14 investor, 12 collector; remove 4 of each (1-2p) or 2 (3p). */
static const int8_t VISITORS_TOTAL[5][3] = {
    {0, 0, 0}, {10, 10, 8}, {10, 10, 8}, {12, 12, 10}, {14, 14, 12}};
/* C§1 Tickets per colour in the box office, by player count. */
static const int8_t TICKETS_PER_COLOUR[5] = {0, 10, 10, 15, 20};
/* C§13 Easels (works of international renown), by player count. */
static const int8_t EASELS[5] = {0, 1, 1, 2, 3};

/* C§3 Artists: [form][colour][variant] initial fame, printed promotion level and
 * star template (0 = L, 1 = H). */
static const int8_t ARTIST_FAME0[4][2][2] = {
    {{3, 5}, {7, 10}},   /* painting: blue 3 / 5, red 7 / 10 */
    {{3, 5}, {7, 10}},   /* sculpture */
    {{1, 4}, {5, 8}},    /* photography */
    {{1, 4}, {5, 8}}};   /* digital */
static const int8_t ARTIST_PROMO0[4][2][2] = {
    {{0, 1}, {2, 3}}, {{0, 1}, {2, 3}}, {{0, 1}, {2, 3}}, {{0, 1}, {2, 3}}};
static const int8_t ARTIST_TEMPLATE[4][2][2] = {
    {{0, 1}, {1, 1}}, {{0, 1}, {1, 1}}, {{0, 1}, {1, 1}}, {{0, 1}, {1, 1}}};

/* C§4 Fame at which each star is reached, per template; sale value per star level. */
static const int8_t STAR_THRESHOLDS[2][6] = {
    {2, 5, 8, 11, 15, 19},   /* L: low blue artists */
    {2, 6, 9, 12, 15, 19}};  /* H: all others (1st threshold never matters) */
static const int8_t STAR_VALUE[7] = {0, 5, 8, 11, 14, 17, 20};
static const int8_t FAME_MAX = 19;
static const int8_t CELEBRITY_MONEY = 5;  /* R-ART-3 */

/* C§3 Artist bonus tiles (10): kinds and counts. */
enum { BONUS_MONEY = 0, BONUS_INFLUENCE = 1, BONUS_FAME = 2, BONUS_TWO_TICKETS = 3,
       BONUS_VISITOR = 4, NUM_ARTIST_BONUS_KINDS = 5 };
static const int8_t ARTIST_BONUS_COUNT[5] = {2, 2, 2, 2, 2};

/* C§5 Works of art: 8 tiles per form, the same for every form.
 * Ticket patterns: TK_VIP, TK_INV, TK_ANY, TK_VIP_PLUS (VIP + investor-or-collector),
 * TK_INV_PLUS (investor + VIP-or-collector), TK_TWO (two different colours). */
enum { TKP_VIP = 0, TKP_INV = 1, TKP_ANY = 2, TKP_VIP_PLUS = 3, TKP_INV_PLUS = 4, TKP_TWO = 5 };
static const int8_t WORK_FAME[8] = {0, 0, 0, 0, 1, 1, 1, 2};
static const int8_t WORK_TICKETS[8] = {TKP_VIP, TKP_INV, TKP_ANY, TKP_ANY,
                                       TKP_VIP_PLUS, TKP_INV_PLUS, TKP_TWO, TKP_TWO};
static const int8_t WORK_VISITORS[8] = {1, 1, 1, 1, 2, 2, 2, 2};

/* C§6 Contracts (20): id = 5*form + kind. Kind 4 is the money bonus for painting and
 * photography, the influence bonus for sculpture and digital. */
enum { CK_SIGN = 0, CK_ASSISTANT = 1, CK_BAG_VISITOR = 2, CK_PLAZA_VIP_INV = 3, CK_BONUS = 4 };
static const int8_t CONTRACT_BONUS_IS_MONEY[4] = {1, 0, 1, 0};
/* C§6 Player board contract slots: ticket for filling an empty slot (0 VIP, 1 inv, 3 any). */
static const int8_t CONTRACT_SLOT_TICKET[3] = {1, 0, 3};

/* C§7 Reputation tiles (20, index = number - 1): what they count, $ and influence each. */
enum { RT_PER_3_INFLUENCE, RT_COLLECTOR, RT_VIP, RT_INVESTOR, RT_VISITOR, RT_SET,
       RT_REP_TILE, RT_AUCTION_ASSISTANT, RT_ASSISTANT_IN_PLAY, RT_PROMO4_ARTIST,
       RT_ACQUIRED, RT_SOLD, RT_EXHIBITED, RT_ART_FORMS, RT_PHOTO, RT_PAINTING,
       RT_DIGITAL, RT_SCULPTURE, RT_FAME15_ARTIST, RT_MASTERPIECE };
static const int8_t REP_TILE_MONEY[20] = {1, 3, 2, 2, 1, 4, 2, 3, 1, 2, 2, 3, 3, 2, 3, 3, 3, 3, 2, 4};
static const int8_t REP_TILE_INFL[20] = {0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2};

/* C§7 Player board reputation spaces: the bonus gained when a tile is placed. */
enum { RS_INFLUENCE = 0, RS_MONEY = 1, RS_FAME = 2, RS_VISITOR = 3, RS_TWO_TICKETS = 4,
       RS_ASSISTANT = 5 };

/* C§8 Promotion: 4 tokens of each level 1..5; bonus by new level. */
enum { PB_ANY_TICKET = 0, PB_INFLUENCE = 1, PB_TWO_TICKETS = 2, PB_MONEY = 3, PB_VISITOR = 4 };
static const int8_t PROMO_TOKENS = 4;
static const int8_t PROMO_BONUS[6] = {-1, PB_ANY_TICKET, PB_INFLUENCE, PB_TWO_TICKETS, PB_MONEY,
                                      PB_VISITOR};

/* C§9 Hiring: cost and printed bonus by hire number (1st..8th). */
enum { HB_NONE = 0, HB_INV_TICKET = 1, HB_VIP_TICKET = 2, HB_INFLUENCE = 3, HB_ANY_TICKET = 4,
       HB_MONEY = 5 };
static const int8_t HIRE_COST[8] = {1, 2, 2, 3, 3, 4, 5, 6};
static const int8_t HIRE_BONUS[8] = {HB_NONE, HB_INV_TICKET, HB_VIP_TICKET, HB_INFLUENCE,
                                     HB_NONE, HB_ANY_TICKET, HB_NONE, HB_MONEY};

/* C§10 International Market: rows 0-3 reputation (digital, photography, sculpture,
 * painting), rows 4-6 auction ($1, $3, $6); columns I, II, III. */
static const int8_t MARKET_ROW_FORM[4] = {3, 2, 1, 0};
static const int8_t MARKET_COLUMN_INFLUENCE[3] = {3, 2, 1};
static const int8_t AUCTION_COST[3] = {1, 3, 6};
enum { AB_ANY_TICKET = 0, AB_ASSISTANT = 1, AB_TWO_TICKETS = 2, AB_INFLUENCE = 3, AB_MONEY = 4,
       AB_VISITOR = 5 };
static const int8_t AUCTION_BONUS[3][3] = {
    {AB_ANY_TICKET, AB_ASSISTANT, AB_TWO_TICKETS},   /* $1 */
    {AB_ASSISTANT, AB_INFLUENCE, AB_MONEY},          /* $3 */
    {AB_VISITOR, AB_MONEY, AB_INFLUENCE}};           /* $6 */
/* R-DATA-1 Column majorities: 1st / 2nd / 3rd (column II as settled: 10/5/3). */
static const int8_t MAJORITY[3][3] = {{6, 3, 1}, {10, 5, 3}, {15, 10, 6}};

/* C§2 Influence track: money icons and their end-game value (R-DATA-2: $20 at 35). */
#define NUM_MONEY_ICONS 20
static const int8_t MONEY_ICONS[NUM_MONEY_ICONS] = {0, 1, 4, 8, 12, 15, 18, 20, 22, 24, 26, 27,
                                                    28, 29, 30, 31, 32, 33, 34, 35};
static const int8_t MONEY_ICON_VALUE[NUM_MONEY_ICONS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                         12, 13, 14, 15, 16, 17, 18, 20};
static const int8_t INFLUENCE_MAX = 35;

/* C§11 Curator cards: works of each form (painting, sculpture, photo, digital) needed
 * on exhibit; goal A pays $10, goal B $15 (R-DATA-4 for C2 goal B). */
static const int8_t CURATOR_GOALS[4][2][4] = {
    {{1, 1, 1, 0}, {0, 1, 1, 2}},
    {{0, 1, 1, 1}, {2, 1, 0, 1}},
    {{1, 0, 1, 1}, {1, 2, 1, 0}},
    {{1, 1, 0, 1}, {1, 0, 2, 1}}};
static const int8_t CURATOR_PAY[2] = {10, 15};
/* C§11 Art Dealer cards: sold works needed; goals A $5, B $10, C $10. */
static const int8_t DEALER_GOALS[4][3][4] = {
    {{0, 0, 0, 1}, {1, 1, 0, 0}, {0, 0, 2, 0}},
    {{1, 0, 0, 0}, {0, 1, 1, 0}, {0, 0, 0, 2}},
    {{0, 1, 0, 0}, {0, 0, 1, 1}, {2, 0, 0, 0}},
    {{0, 0, 1, 0}, {1, 0, 0, 1}, {0, 2, 0, 0}}};
static const int8_t DEALER_PAY[3] = {5, 10, 10};

/* C§14 / RN §10 Lacerda's International Market placement order (row, column). */
static const int8_t LACERDA_MARKET_ORDER[14][2] = {
    {0, 0}, {4, 0}, {0, 2}, {4, 2}, {1, 0}, {5, 0}, {1, 2},
    {5, 2}, {2, 0}, {6, 0}, {2, 2}, {6, 2}, {3, 0}, {3, 2}};

#endif
