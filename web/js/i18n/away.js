// Words of the "while you were away" digest (game/away.js; docs/rules.md, "While you were away").
// i18n.js merges them like review.js.
export default {
  en: {
    "away.title": "While you were away",
    "away.noEvents": "Nothing public happened.",
    "away.yourResults": "What you found out",
    "away.dismiss": "Got it",
  },
  ko: {
    "away.title": "자리를 비운 사이",
    "away.noEvents": "공개된 일은 없었습니다.",
    "away.yourResults": "내가 알아낸 것",
    "away.dismiss": "확인",
  },
  ru: {
    "away.title": "Пока вас не было",
    "away.noEvents": "Ничего открытого не произошло.",
    "away.yourResults": "Что вы узнали",
    "away.dismiss": "Понятно",
  },
};
