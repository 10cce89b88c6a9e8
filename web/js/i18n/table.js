// Words of the table's running game, in the three languages: the yakuza chat tab, the news
// of a repeated tie, whose turn it is in a defense, the revote's first-round bars, the "ready
// to vote" count, the greeting's hint and the lobby's note on options that change nothing.
// i18n.js merges them like review.js; tests/unit/test_i18n_keys.py checks every key the client
// can build from the engine's names exists in each language.
export default {
  en: {
    "chat.channel.yakuza": "Yakuza",
    "event.voteResult.tieAgain": "Another tie ({names}): nobody leaves today.",
    "hint.greetingEnds": "The greeting ends by itself when the time is up.",
    "hint.defenseNow": "{name} is defending now. Only the one on trial may write; the others read and listen.",
    "hint.defenseWaiting": "{name} is defending now. You are on trial too: your turn comes after. Until then you can only read.",
    "hint.defenseYouNow": "Your turn: defend yourself in the chat, then end your turn.",
    "votes.roundOne": "First round (closed)",
    "votes.readyCount": "{n} of {total} ready to vote",
    "lobby.idleOption": "With {n} players, “{option}” deals the same roles as without it.",
  },
  ko: {
    "chat.channel.yakuza": "야쿠자",
    "event.voteResult.tieAgain": "다시 동률({names}): 오늘은 아무도 떠나지 않습니다.",
    "hint.greetingEnds": "인사 시간은 시간이 다 되면 저절로 끝납니다.",
    "hint.defenseNow": "지금은 {name} 님이 변론합니다. 변론하는 사람만 쓸 수 있고, 나머지는 읽고 듣습니다.",
    "hint.defenseWaiting": "지금은 {name} 님이 변론합니다. 나도 용의자이며 그다음이 내 차례입니다. 그때까지는 읽기만 할 수 있습니다.",
    "hint.defenseYouNow": "내 차례입니다. 채팅으로 변론한 뒤 차례를 마치세요.",
    "votes.roundOne": "1차 투표 (마감)",
    "votes.readyCount": "{total}명 중 {n}명 투표 준비",
    "lobby.idleOption": "{n}명일 때는 ‘{option}’ 설정을 켜도 나오는 역할이 같습니다.",
  },
  ru: {
    "chat.channel.yakuza": "Якудза",
    "event.voteResult.tieAgain": "Снова ничья ({names}): сегодня никто не выбывает.",
    "hint.greetingEnds": "Знакомство закончится само, когда выйдет время.",
    "hint.defenseNow": "Сейчас защищается {name}. Писать может только тот, кто защищается; остальные читают и слушают.",
    "hint.defenseWaiting": "Сейчас защищается {name}. Вы тоже под подозрением: ваша очередь следующая. До тех пор можно только читать.",
    "hint.defenseYouNow": "Ваша очередь: защищайтесь в чате, затем завершите ход.",
    "votes.roundOne": "Первый тур (закрыт)",
    "votes.readyCount": "Готовы к голосованию: {n} из {total}",
    "lobby.idleOption": "При {n} игроках настройка «{option}» не меняет набор ролей.",
  },
};
