// The sixteen facts of the hotel front-desk task, one table read by both simulated models: how
// often guests ask about each (a few facts are asked about far more than the rest), how likely
// the model gets it right by habit when its prompt says nothing, the keywords by which a prompt
// sentence states the fact (or a wrong version of it), the grader's words for it, and how the
// reflection LM words it (rightly or, when it misreads the feedback, wrongly).

export type FactId =
  | 'checkIn' | 'checkOut' | 'breakfast' | 'parking' | 'wifi' | 'shuttle' | 'cancellation' | 'pets'
  | 'lateCheckout' | 'pool' | 'gym' | 'luggage' | 'cityTax' | 'accessible' | 'laundry' | 'restaurant';

type KeywordGroups = ReadonlyArray<readonly string[]>;

export interface HotelFact {
  id: FactId;
  /** Relative frequency with which a guest message asks about it. */
  weight: number;
  /** Chance the model states it right by habit when its prompt says nothing about it. */
  habit: number;
  /** A sentence states the fact when it holds a keyword of every group (lower case). */
  keywords: KeywordGroups;
  /** A sentence states a wrong version of it (checked first). */
  wrongKeywords: KeywordGroups;
  /** The fact as the grader states it ("breakfast is served from 6:30 to 10:30"). */
  truth: string;
  /** What it is about, as the grader names it ("the breakfast hours"). */
  topic: string;
  /** How a guest asks about it. */
  questions: readonly string[];
  /** The reflection LM's wordings of the fact. */
  phrasings: readonly string[];
  /** Its wordings of a wrong version (a plausible misreading). */
  wrongPhrasings: readonly string[];
  /** What a reply says when it gets the fact wrong. */
  wrongReply: string;
}

export const HOTEL_FACTS: readonly HotelFact[] = [
  {
    id: 'checkIn', weight: 20, habit: 0.3,
    keywords: [['check-in', 'check in', 'checkin'], ['15:00', '3 pm', '3pm', '3 p.m.']],
    wrongKeywords: [['check-in', 'check in', 'checkin'], ['14:00', '2 pm', '2pm', '12:00']],
    truth: 'check-in starts at 15:00', topic: 'the check-in time',
    questions: ['What time can we check in?', 'From when is check-in possible?', 'Our train arrives at noon; when can we get into the room?'],
    phrasings: ['Check-in starts at 15:00.', 'Guests can check in from 3 pm.', 'Rooms are ready for check-in at 15:00.'],
    wrongPhrasings: ['Check-in starts at 14:00.'],
    wrongReply: 'You can check in from 14:00.',
  },
  {
    id: 'checkOut', weight: 17, habit: 0.3,
    keywords: [['check-out', 'check out', 'checkout'], ['11:00', '11 am', '11am', '11 a.m.']],
    wrongKeywords: [['check-out', 'check out', 'checkout'], ['12:00', 'noon', '10:00']],
    truth: 'check-out is by 11:00', topic: 'the check-out time',
    questions: ['When do we have to check out?', 'By what time must the room be free on the last day?', 'What is the check-out time?'],
    phrasings: ['Check-out is by 11:00.', 'Guests check out by 11 am on the day they leave.', 'Rooms must be vacated at check-out, 11:00.'],
    wrongPhrasings: ['Check-out is by 12:00 noon.'],
    wrongReply: 'Check-out is at noon.',
  },
  {
    id: 'breakfast', weight: 14, habit: 0.1,
    keywords: [['breakfast'], ['6:30', '6.30']],
    wrongKeywords: [['breakfast'], ['7:00', '7 am', '7am']],
    truth: 'breakfast is served from 6:30 to 10:30', topic: 'the breakfast hours',
    questions: ['When is breakfast served?', 'We leave early; from what time can we have breakfast?', 'What are the breakfast hours?'],
    phrasings: ['Breakfast is served from 6:30 to 10:30 in the courtyard room.', 'Serve guests the breakfast times: 6:30 to 10:30 every day.', 'Breakfast runs 6:30-10:30.'],
    wrongPhrasings: ['Breakfast is served from 7:00 to 10:00.'],
    wrongReply: 'Breakfast is served from 7:00.',
  },
  {
    id: 'parking', weight: 12, habit: 0.05,
    keywords: [['parking', 'garage', 'park the car', 'car park'], ['€18', '18 euro', 'eur 18']],
    wrongKeywords: [['parking', 'garage', 'park the car', 'car park'], ['free parking', 'parking is free', '€15', 'no charge']],
    truth: 'parking in the garage costs €18 a night', topic: 'parking',
    questions: ['Can we park the car at the hotel, and what does it cost?', 'Is there parking?', 'How much is the garage per night?'],
    phrasings: ['Parking in the garage under the hotel costs €18 a night.', 'The hotel garage costs €18 per night.', 'Guests with a car can use the car park for €18 a night.'],
    wrongPhrasings: ['Parking is free for hotel guests.'],
    wrongReply: 'Parking is free for guests.',
  },
  {
    id: 'wifi', weight: 10, habit: 0.35,
    keywords: [['wi-fi', 'wifi', 'wireless', 'internet'], ['free', 'no charge', 'included']],
    wrongKeywords: [['wi-fi', 'wifi', 'wireless', 'internet'], ['€5', '5 euro', 'a day for', 'premium']],
    truth: 'Wi-Fi is free in the whole hotel', topic: 'the Wi-Fi',
    questions: ['Is there Wi-Fi in the rooms?', 'Do you charge for the internet?', 'How do I get online?'],
    phrasings: ['Wi-Fi is free everywhere in the hotel; the password is on the key card sleeve.', 'Internet access is included in every room at no charge.', 'The wireless network is free for guests.'],
    wrongPhrasings: ['Wi-Fi costs €5 a day.'],
    wrongReply: 'Wi-Fi costs €5 a day.',
  },
  {
    id: 'shuttle', weight: 9, habit: 0.05,
    keywords: [['shuttle', 'airport bus', 'airport transfer'], ['€12', '12 euro', 'eur 12']],
    wrongKeywords: [['shuttle', 'airport bus', 'airport transfer'], ['free', '€10', 'no charge']],
    truth: 'the airport shuttle leaves every hour and costs €12', topic: 'the airport shuttle',
    questions: ['Is there a shuttle to the airport?', 'How do we get from the airport to the hotel?', 'What does the airport transfer cost?'],
    phrasings: ['The airport shuttle leaves every hour on the half hour and costs €12 a person.', 'An airport transfer by shuttle costs €12 each way.', 'Airport shuttle: hourly, €12 per person.'],
    wrongPhrasings: ['The airport shuttle is free for guests.'],
    wrongReply: 'The airport shuttle is free.',
  },
  {
    id: 'cancellation', weight: 8, habit: 0.15,
    keywords: [['cancel'], ['48 hours', 'two days', '2 days']],
    wrongKeywords: [['cancel'], ['24 hours', 'one day', '1 day', 'non-refundable', 'any time']],
    truth: 'bookings can be cancelled free of charge until 48 hours before arrival', topic: 'cancelling',
    questions: ['Can I still cancel my booking?', 'Until when can we cancel without paying?', 'What is your cancellation policy?'],
    phrasings: ['Bookings can be cancelled free of charge until 48 hours before arrival.', 'Free cancellation is possible up to two days before arrival.', 'Guests may cancel without a fee until 48 hours before they arrive.'],
    wrongPhrasings: ['Bookings can be cancelled free of charge until 24 hours before arrival.'],
    wrongReply: 'You can cancel for free until 24 hours before arrival.',
  },
  {
    id: 'pets', weight: 7, habit: 0.1,
    keywords: [['dog', 'pet'], ['10 kg', '10kg', 'small dogs']],
    wrongKeywords: [['dog', 'pet'], ['no pets', 'not allowed', 'any size']],
    truth: 'dogs up to 10 kg are welcome for €20 a night', topic: 'bringing a dog',
    questions: ['Can we bring our dog?', 'Are pets allowed?', 'We travel with a small terrier; is that all right?'],
    phrasings: ['Dogs up to 10 kg are welcome for €20 a night; no other pets.', 'Small dogs (up to 10 kg) may stay for €20 a night.', 'Pets: dogs under 10 kg only, €20 per night.'],
    wrongPhrasings: ['Pets are not allowed in the hotel.'],
    wrongReply: 'Pets are not allowed, sorry.',
  },
  {
    id: 'lateCheckout', weight: 6, habit: 0.05,
    keywords: [['late check-out', 'late checkout', 'late check out', 'stay longer on the last day'], ['€25', '25 euro']],
    wrongKeywords: [['late check-out', 'late checkout', 'late check out', 'stay longer on the last day'], ['free of charge', 'at no cost', 'not possible']],
    truth: 'late check-out until 14:00 costs €25 when the room is free', topic: 'late check-out',
    questions: ['Could we keep the room a bit longer on our last day?', 'Is late check-out possible?', 'Our flight is in the evening; can we check out later?'],
    phrasings: ['Late check-out until 14:00 costs €25, if the room is not booked.', 'Offer late check-out until 14:00 for €25 when the room is available.', 'A late checkout (14:00) is €25.'],
    wrongPhrasings: ['Late check-out is free of charge on request.'],
    wrongReply: 'Late check-out is free of charge on request.',
  },
  {
    id: 'pool', weight: 5, habit: 0.1,
    keywords: [['pool', 'swim'], ['21:00', '9 pm', '9pm']],
    wrongKeywords: [['pool', 'swim'], ['22:00', '10 pm', 'around the clock', '24 hours']],
    truth: 'the rooftop pool is open from 7:00 to 21:00', topic: 'the pool hours',
    questions: ['Until when is the pool open?', 'Can we go for a swim in the evening?', 'What are the pool hours?'],
    phrasings: ['The rooftop pool is open from 7:00 to 21:00.', 'Guests can swim in the rooftop pool until 21:00.', 'Pool hours: 7:00-21:00.'],
    wrongPhrasings: ['The rooftop pool is open until 22:00.'],
    wrongReply: 'The pool is open until 22:00.',
  },
  {
    id: 'gym', weight: 4, habit: 0.15,
    keywords: [['gym', 'fitness'], ['around the clock', '24 hours', '24/7', 'day and night']],
    wrongKeywords: [['gym', 'fitness'], ['closes at', 'until 20:00', '6:00 to 22:00']],
    truth: 'the gym is open around the clock with the room key', topic: 'the gym',
    questions: ['Is there a gym, and when is it open?', 'Can I work out late at night?', 'What are the gym hours?'],
    phrasings: ['The gym on the first floor is open around the clock with the room key.', 'Guests can use the fitness room 24 hours a day.', 'The gym is open 24/7.'],
    wrongPhrasings: ['The gym closes at 20:00.'],
    wrongReply: 'The gym closes at 20:00.',
  },
  {
    id: 'luggage', weight: 3.5, habit: 0.2,
    keywords: [['luggage', 'baggage', 'suitcase'], ['free', 'no charge', 'at no cost']],
    wrongKeywords: [['luggage', 'baggage', 'suitcase'], ['€5', 'per bag', 'cannot store']],
    truth: 'luggage can be left at the front desk for free before and after the stay', topic: 'storing luggage',
    questions: ['Can we leave our suitcases somewhere after we check out?', 'Do you store luggage?', 'We arrive early; can we drop our bags?'],
    phrasings: ['Luggage can be left at the front desk for free before arrival time and after departure.', 'Guests may store baggage at the front desk at no cost.', 'Suitcases are kept for free at the front desk.'],
    wrongPhrasings: ['Luggage storage costs €5 per bag.'],
    wrongReply: 'Luggage storage costs €5 per bag.',
  },
  {
    id: 'cityTax', weight: 3, habit: 0.05,
    keywords: [['city tax', 'tourist tax', 'local tax'], ['3.50', '3,50']],
    wrongKeywords: [['city tax', 'tourist tax', 'local tax'], ['included', 'no city tax', 'no tourist tax']],
    truth: 'a city tax of €3.50 per person per night is paid at the hotel', topic: 'the city tax',
    questions: ['Is the city tax included in the price?', 'Are there any extra taxes to pay?', 'How much is the tourist tax?'],
    phrasings: ['A city tax of €3.50 per person per night is paid at the hotel.', 'The tourist tax is €3.50 per person and night, payable on site.', 'Add the local tax: €3.50 a person per night.'],
    wrongPhrasings: ['The city tax is included in the room price.'],
    wrongReply: 'The city tax is already included in the price.',
  },
  {
    id: 'accessible', weight: 2.5, habit: 0.05,
    keywords: [['wheelchair', 'accessible', 'step-free', 'mobility'], ['roll-in', 'ground floor', 'ground-floor']],
    wrongKeywords: [['wheelchair', 'accessible', 'step-free', 'mobility'], ['no accessible', 'not accessible', 'not suitable']],
    truth: 'two ground-floor rooms are step-free with roll-in showers', topic: 'step-free rooms',
    questions: ['My father uses a wheelchair; do you have a suitable room?', 'Are there accessible rooms?', 'Is there a room without steps?'],
    phrasings: ['Two ground-floor rooms are step-free, with roll-in showers.', 'For wheelchair users there are two accessible rooms on the ground floor.', 'Step-free rooms: two, ground floor, roll-in shower.'],
    wrongPhrasings: ['The hotel has no accessible rooms.'],
    wrongReply: 'Unfortunately the hotel is not accessible.',
  },
  {
    id: 'laundry', weight: 2, habit: 0.1,
    keywords: [['laundry', 'washing', 'dry cleaning'], ['same day', 'same-day']],
    wrongKeywords: [['laundry', 'washing', 'dry cleaning'], ['next day', 'next-day', 'no laundry']],
    truth: 'laundry handed in by 9:00 comes back the same day', topic: 'the laundry service',
    questions: ['Do you have a laundry service?', 'Can I get a shirt washed during my stay?', 'How fast is the laundry?'],
    phrasings: ['Laundry handed in by 9:00 comes back the same day.', 'Same-day laundry service for items given in before 9:00.', 'Washing is returned the same day if handed in by 9:00.'],
    wrongPhrasings: ['Laundry comes back the next day.'],
    wrongReply: 'Laundry comes back the next day.',
  },
  {
    id: 'restaurant', weight: 1.5, habit: 0.1,
    keywords: [['restaurant', 'dinner'], ['18:00', '6 pm', '6pm']],
    wrongKeywords: [['restaurant', 'dinner'], ['19:00', '7 pm', '7pm', 'no restaurant']],
    truth: 'the restaurant serves dinner from 18:00 to 22:00', topic: 'dinner',
    questions: ['Can we have dinner at the hotel?', 'From what time does the restaurant serve dinner?', 'Is the restaurant open in the evening?'],
    phrasings: ['The restaurant serves dinner from 18:00 to 22:00; tables are booked at the front desk.', 'Dinner is served in the restaurant from 18:00.', 'Restaurant: dinner 18:00-22:00.'],
    wrongPhrasings: ['The restaurant serves dinner from 19:00.'],
    wrongReply: 'Dinner starts at 19:00.',
  },
];

export const FACT_IDS: readonly FactId[] = HOTEL_FACTS.map((f) => f.id);
const BY_ID = new Map<FactId, HotelFact>(HOTEL_FACTS.map((f) => [f.id, f]));

export function factOf(id: FactId): HotelFact {
  return BY_ID.get(id) as HotelFact;
}

/** Sentences that state no fact: what a reflection LM adds when it only makes guidance "clearer". */
export const VAGUE_SENTENCES: readonly string[] = [
  'Be friendly and professional.',
  'Give the guest accurate information about the hotel.',
  'Answer clearly and politely.',
  'Make sure every answer is correct.',
  'Keep the guest’s needs in mind.',
  'Welcome guests warmly and thank them for choosing the hotel.',
];

/** A sentence asks the model to keep to what the guest asked (it then volunteers less). */
export const FOCUS_KEYWORDS: KeywordGroups = [['only'], ['ask', 'question', 'asked']];
export const FOCUS_PHRASINGS: readonly string[] = [
  'Answer only what the guest asks about; do not add other hotel information.',
  'Only give the facts the guest’s question needs.',
  'Stick to the questions asked: mention only the facts they need.',
];
